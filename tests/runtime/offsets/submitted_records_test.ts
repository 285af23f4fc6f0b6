import assert from "node:assert/strict";
import { SubmittedRecords } from "../../../src/runtime/offsets/submitted_records.ts";

const P = { table: "incident" };
const Q = { table: "problem" };

Deno.test("submitted records: nothing is committable before acks", () => {
  const tracker = new SubmittedRecords();
  tracker.submit(P, { n: 1 });
  tracker.submit(P, { n: 2 });
  const result = tracker.committableOffsets();
  assert.deepEqual(result.offsets, []);
  assert.equal(result.committableCount, 0);
  assert.equal(result.uncommittableCount, 2);
  assert.equal(result.partitionCount, 1);
  assert.equal(result.largestQueueSize, 2);
  assert.deepEqual(result.largestQueuePartition, P);
});

Deno.test("submitted records: out-of-order acks commit only the contiguous acked prefix", () => {
  const tracker = new SubmittedRecords();
  const [r1, r2, r3, r4] = [1, 2, 3, 4].map((n) => tracker.submit(P, { n }));
  tracker.ack(r3);
  tracker.ack(r4);
  assert.deepEqual(tracker.committableOffsets().offsets, [], "r1 and r2 are still in flight");
  tracker.ack(r1);
  let result = tracker.committableOffsets();
  assert.deepEqual(result.offsets, [{ partition: P, offset: { n: 1 } }]);
  assert.equal(result.committableCount, 1);
  assert.equal(result.uncommittableCount, 3);
  assert.deepEqual(tracker.committableOffsets().offsets, [], "r1 was removed; nothing new");
  tracker.ack(r2);
  result = tracker.committableOffsets();
  assert.deepEqual(result.offsets, [{ partition: P, offset: { n: 4 } }]);
  assert.equal(result.committableCount, 3);
  assert.equal(result.uncommittableCount, 0);
  assert.equal(result.partitionCount, 0);
  assert.equal(result.largestQueuePartition, null);
  assert.equal(tracker.pendingCount, 0);
});

Deno.test("submitted records: source partitions are independent, and matched by value not field order", () => {
  const tracker = new SubmittedRecords();
  const p1 = tracker.submit({ table: "incident", shard: 1 }, { n: 1 });
  const q1 = tracker.submit(Q, { n: 10 });
  const p2 = tracker.submit({ shard: 1, table: "incident" }, { n: 2 });
  const q2 = tracker.submit(Q, { n: 11 });
  tracker.ack(q2);
  tracker.ack(p1);
  tracker.ack(p2);
  const result = tracker.committableOffsets();
  assert.deepEqual(result.offsets, [{ partition: { table: "incident", shard: 1 }, offset: { n: 2 } }]);
  assert.equal(result.partitionCount, 1);
  assert.deepEqual(result.largestQueuePartition, Q);
  assert.equal(result.largestQueueSize, 2);
  tracker.ack(q1);
  assert.deepEqual(tracker.committableOffsets().offsets, [{ partition: Q, offset: { n: 11 } }]);
});

Deno.test("submitted records: a random ack order always commits the highest contiguous prefix", () => {
  for (let round = 0; round < 50; round++) {
    const tracker = new SubmittedRecords();
    const records = Array.from({ length: 40 }, (_, n) => tracker.submit(P, { n }));
    const order = [...records.keys()].sort(() => Math.random() - 0.5);
    const acked = new Set<number>();
    let committed = -1;
    for (const index of order) {
      tracker.ack(records[index]);
      acked.add(index);
      let expected = committed;
      while (acked.has(expected + 1)) expected++;
      const offsets = tracker.committableOffsets().offsets;
      if (expected > committed) {
        assert.deepEqual(offsets, [{ partition: P, offset: { n: expected } }], `order ${order}`);
        committed = expected;
      } else {
        assert.deepEqual(offsets, [], `order ${order}`);
      }
    }
    assert.equal(committed, 39);
    assert.equal(tracker.pendingCount, 0);
  }
});

Deno.test("submitted records: a dropped record unblocks its successors but its own offset is never committed", () => {
  const tracker = new SubmittedRecords();
  const [r1, r2, r3] = [1, 2, 3].map((n) => tracker.submit(P, { n }));
  tracker.ack(r1);
  tracker.drop(r3);
  assert.deepEqual(tracker.committableOffsets().offsets, [{ partition: P, offset: { n: 1 } }]);
  tracker.ack(r2);
  const result = tracker.committableOffsets();
  assert.deepEqual(result.offsets, [{ partition: P, offset: { n: 2 } }], "r3 was dropped: commit r2, not r3");
  assert.equal(result.committableCount, 2);

  const only = tracker.submit(Q, { n: 1 });
  tracker.drop(only);
  const dropped = tracker.committableOffsets();
  assert.deepEqual(dropped.offsets, [], "a partition with only dropped records has nothing to commit");
  assert.equal(dropped.committableCount, 1);
  assert.equal(tracker.pendingCount, 0);
});

Deno.test("submitted records: counts follow submits, acks and commits; repeated or stale acks are ignored", () => {
  const tracker = new SubmittedRecords();
  const r1 = tracker.submit(P, { n: 1 });
  const r2 = tracker.submit(P, { n: 2 });
  assert.equal(tracker.inFlightCount, 2);
  assert.equal(tracker.pendingCount, 2);
  tracker.ack(r2);
  tracker.ack(r2);
  tracker.drop(r2); // already acked: stays acked
  assert.equal(tracker.inFlightCount, 1);
  assert.equal(tracker.pendingCount, 2);
  tracker.ack(r1);
  tracker.committableOffsets();
  assert.equal(tracker.pendingCount, 0);
  tracker.ack(r1); // already committed
  new SubmittedRecords().ack(r1); // another tracker's handle
  assert.equal(tracker.inFlightCount, 0);
  const r3 = tracker.submit(P, { n: 3 });
  tracker.ack(r3);
  assert.deepEqual(tracker.committableOffsets().offsets, [{ partition: P, offset: { n: 3 } }]);
});

Deno.test("submitted records: long queues keep their order across internal compaction", () => {
  const tracker = new SubmittedRecords();
  const records = Array.from({ length: 5000 }, (_, n) => tracker.submit(P, { n }));
  for (let i = 0; i < 5000; i += 500) {
    for (let j = i; j < i + 500; j++) tracker.ack(records[j]);
    assert.deepEqual(tracker.committableOffsets().offsets, [{ partition: P, offset: { n: i + 499 } }]);
    assert.equal(tracker.pendingCount, 5000 - i - 500);
  }
});

Deno.test("submitted records: awaitInFlightAtMost resolves when acks bring the count down", async () => {
  const tracker = new SubmittedRecords();
  await tracker.awaitInFlightAtMost(0); // nothing in flight: at once
  const records = [1, 2, 3].map((n) => tracker.submit(P, { n }));
  let belowTwo = false;
  let none = false;
  const waitBelowTwo = tracker.awaitInFlightAtMost(1).then(() => belowTwo = true);
  const waitNone = tracker.awaitInFlightAtMost(0).then(() => none = true);
  tracker.ack(records[2]);
  await Promise.resolve();
  assert.equal(belowTwo, false);
  tracker.drop(records[0]);
  await waitBelowTwo;
  assert.equal(none, false);
  tracker.ack(records[1]);
  await waitNone;
  assert.equal(none, true);
});

Deno.test("submitted records: awaitInFlightAtMost rejects when its signal aborts", async () => {
  const tracker = new SubmittedRecords();
  const record = tracker.submit(P, { n: 1 });
  const controller = new AbortController();
  const waiting = tracker.awaitInFlightAtMost(0, controller.signal);
  controller.abort(new Error("shutting down"));
  await assert.rejects(waiting, /shutting down/);
  await assert.rejects(tracker.awaitInFlightAtMost(0, controller.signal), /shutting down/, "already aborted");
  tracker.ack(record);
  await tracker.awaitInFlightAtMost(0, controller.signal); // nothing in flight: resolves whatever the signal
});
