/** preCommit never passes a record that is not fully handled; redeliveries skip what was handled. */
import { assertEquals } from "../support/assert.ts";
import { OffsetTracker } from "../../src/sink/offset_tracker.ts";
import { sinkRecord } from "./support/records.ts";

const rec = (offset: number, partition = 0) => sinkRecord({ offset, partition, value: { a: "1" } });
const consumed = (offset: number, partition = 0) => [{ topic: "incidents", partition, offset }];

Deno.test("the safe offset is the first record not yet handled, per partition", () => {
  const tracker = new OffsetTracker<string>();
  for (const o of [10, 11, 12]) tracker.take(rec(o));
  tracker.take(rec(5, 1));
  tracker.handled(rec(10));
  tracker.handled(rec(12));
  tracker.handled(rec(5, 1));
  assertEquals(tracker.safeOffsets([...consumed(13), ...consumed(6, 1)]), [
    ...consumed(11),
    ...consumed(6, 1),
  ]);
  tracker.handled(rec(11));
  assertEquals(tracker.safeOffsets(consumed(13)), consumed(13));
  // A partition the task never saw (every record filtered by a transform) commits what was consumed.
  assertEquals(tracker.safeOffsets(consumed(99, 7)), consumed(99, 7));
});

Deno.test("a redelivery skips handled records and only reports written ones", () => {
  const tracker = new OffsetTracker<string>();
  for (const o of [0, 1, 2]) assertEquals(tracker.take(rec(o)).state, "new");
  tracker.written(rec(1), "report of 1");
  tracker.handled(rec(2));
  // Offset 0 failed retriably: the driver delivers 0, 1, 2 again.
  assertEquals(tracker.take(rec(0)), { state: "new" });
  assertEquals(tracker.take(rec(1)), { state: "written", written: "report of 1" });
  assertEquals(tracker.take(rec(2)), { state: "handled" });
  assertEquals(tracker.safeOffsets(consumed(3)), consumed(0));
  tracker.handled(rec(0));
  tracker.handled(rec(1));
  assertEquals(tracker.safeOffsets(consumed(3)), consumed(3));
  assertEquals(tracker.pendingCount, 0);
});

Deno.test("close keeps the floor for the final commit only, then a new assignment starts afresh", () => {
  const tracker = new OffsetTracker<string>();
  tracker.take(rec(4));
  tracker.take(rec(5));
  tracker.handled(rec(5));
  tracker.close([{ topic: "incidents", partition: 0 }]);
  assertEquals(tracker.safeOffsets(consumed(6)), consumed(4));
  // Once used, the floor is gone: another member may have moved the partition on meanwhile.
  assertEquals(tracker.safeOffsets(consumed(40)), consumed(40));
  assertEquals(tracker.pendingCount, 0);
});
