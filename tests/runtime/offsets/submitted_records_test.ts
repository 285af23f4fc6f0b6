import { assertEquals, assertRejects } from "../../support/assert.ts";
import { SubmittedRecords } from "../../../src/runtime/offsets/submitted_records.ts";

const P = { table: "incident" };
const Q = { table: "problem" };

Deno.test("submitted records: nothing is committable before acks", () => {
  const tracker = new SubmittedRecords();
  tracker.submit(P, { n: 1 });
  tracker.submit(P, { n: 2 });
  const result = tracker.committableOffsets();
  assertEquals(result.offsets, []);
  assertEquals(result.committableCount, 0);
  assertEquals(result.uncommittableCount, 2);
  assertEquals(result.partitionCount, 1);
  assertEquals(result.largestQueueSize, 2);
  assertEquals(result.largestQueuePartition, P);
});

Deno.test("submitted records: out-of-order acks commit only the contiguous acked prefix", () => {
  const tracker = new SubmittedRecords();
  const [r1, r2, r3, r4] = [1, 2, 3, 4].map((n) => tracker.submit(P, { n }));
  tracker.ack(r3);
  tracker.ack(r4);
  assertEquals(tracker.committableOffsets().offsets, [], "r1 and r2 are still in flight");
  tracker.ack(r1);
  let result = tracker.committableOffsets();
  assertEquals(result.offsets, [{ partition: P, offset: { n: 1 } }]);
  assertEquals(result.committableCount, 1);
  assertEquals(result.uncommittableCount, 3);
  assertEquals(tracker.committableOffsets().offsets, [], "r1 was removed; nothing new");
  tracker.ack(r2);
  result = tracker.committableOffsets();
  assertEquals(result.offsets, [{ partition: P, offset: { n: 4 } }]);
  assertEquals(result.committableCount, 3);
  assertEquals(result.uncommittableCount, 0);
  assertEquals(result.partitionCount, 0);
  assertEquals(result.largestQueuePartition, null);
  assertEquals(tracker.pendingCount, 0);
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
  assertEquals(result.offsets, [{ partition: { table: "incident", shard: 1 }, offset: { n: 2 } }]);
  assertEquals(result.partitionCount, 1);
  assertEquals(result.largestQueuePartition, Q);
  assertEquals(result.largestQueueSize, 2);
  tracker.ack(q1);
  assertEquals(tracker.committableOffsets().offsets, [{ partition: Q, offset: { n: 11 } }]);
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
        assertEquals(offsets, [{ partition: P, offset: { n: expected } }], `order ${order}`);
        committed = expected;
      } else {
        assertEquals(offsets, [], `order ${order}`);
      }
    }
    assertEquals(committed, 39);
    assertEquals(tracker.pendingCount, 0);
  }
});

Deno.test("submitted records: a dropped record unblocks its successors but its own offset is never committed", () => {
  const tracker = new SubmittedRecords();
  const [r1, r2, r3] = [1, 2, 3].map((n) => tracker.submit(P, { n }));
  tracker.ack(r1);
  tracker.drop(r3);
  assertEquals(tracker.committableOffsets().offsets, [{ partition: P, offset: { n: 1 } }]);
  tracker.ack(r2);
  const result = tracker.committableOffsets();
  assertEquals(result.offsets, [{ partition: P, offset: { n: 2 } }], "r3 was dropped: commit r2, not r3");
  assertEquals(result.committableCount, 2);

  const only = tracker.submit(Q, { n: 1 });
  tracker.drop(only);
  const dropped = tracker.committableOffsets();
  assertEquals(dropped.offsets, [], "a partition with only dropped records has nothing to commit");
  assertEquals(dropped.committableCount, 1);
  assertEquals(tracker.pendingCount, 0);
});

Deno.test("submitted records: counts follow submits, acks and commits; repeated or stale acks are ignored", () => {
  const tracker = new SubmittedRecords();
  const r1 = tracker.submit(P, { n: 1 });
  const r2 = tracker.submit(P, { n: 2 });
  assertEquals(tracker.inFlightCount, 2);
  assertEquals(tracker.pendingCount, 2);
  tracker.ack(r2);
  tracker.ack(r2);
  tracker.drop(r2); // already acked: stays acked
  assertEquals(tracker.inFlightCount, 1);
  assertEquals(tracker.pendingCount, 2);
  tracker.ack(r1);
  tracker.committableOffsets();
  assertEquals(tracker.pendingCount, 0);
  tracker.ack(r1); // already committed
  new SubmittedRecords().ack(r1); // another tracker's handle
  assertEquals(tracker.inFlightCount, 0);
  const r3 = tracker.submit(P, { n: 3 });
  tracker.ack(r3);
  assertEquals(tracker.committableOffsets().offsets, [{ partition: P, offset: { n: 3 } }]);
});

Deno.test("submitted records: long queues keep their order across internal compaction", () => {
  const tracker = new SubmittedRecords();
  const records = Array.from({ length: 5000 }, (_, n) => tracker.submit(P, { n }));
  for (let i = 0; i < 5000; i += 500) {
    for (let j = i; j < i + 500; j++) tracker.ack(records[j]);
    assertEquals(tracker.committableOffsets().offsets, [{ partition: P, offset: { n: i + 499 } }]);
    assertEquals(tracker.pendingCount, 5000 - i - 500);
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
  assertEquals(belowTwo, false);
  tracker.drop(records[0]);
  await waitBelowTwo;
  assertEquals(none, false);
  tracker.ack(records[1]);
  await waitNone;
  assertEquals(none, true);
});

Deno.test("submitted records: awaitInFlightAtMost rejects when its signal aborts", async () => {
  const tracker = new SubmittedRecords();
  const record = tracker.submit(P, { n: 1 });
  const controller = new AbortController();
  const waiting = tracker.awaitInFlightAtMost(0, controller.signal);
  controller.abort(new Error("shutting down"));
  await assertRejects(() => waiting, Error, /shutting down/);
  await assertRejects(
    () => tracker.awaitInFlightAtMost(0, controller.signal),
    Error,
    /shutting down/,
    "already aborted",
  );
  tracker.ack(record);
  await tracker.awaitInFlightAtMost(0, controller.signal); // nothing in flight: resolves whatever the signal
});
