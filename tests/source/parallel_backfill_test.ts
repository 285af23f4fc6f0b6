/**
 * The state of a parallel backfill: sys id ranges that cover every id exactly once, the offset codec (a flat map
 * that round-trips, and a clear error for one that does not parse), and the state machine (moves, finishes,
 * pending ranges, handover cursor, offset snapshots that change only with the state).
 */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import {
  backfillFromOffset,
  BackfillOffsetError,
  backfillToOffset,
  type IdRange,
  ParallelBackfill,
  splitIdSpace,
} from "../../src/source/parallel_backfill.ts";
import { highWaterMark } from "../../src/source/instance_time.ts";
import { cursorFromOffset } from "../../src/source/cursor.ts";

const inRange = (id: string, r: IdRange) =>
  (r.after === null || id > r.after) && (r.atMost === null || id <= r.atMost);

function randomId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

Deno.test("splitIdSpace: 1 range is the whole space", () => {
  assertEquals(splitIdSpace(1), [{ after: null, atMost: null }]);
});

Deno.test("splitIdSpace: 4 ranges of equal width, contiguous, open at both ends", () => {
  const ranges = splitIdSpace(4);
  assertEquals(ranges.map((r) => [r.after, r.atMost]), [
    [null, "3fffffffffffffffffffffffffffffff"],
    ["3fffffffffffffffffffffffffffffff", "7fffffffffffffffffffffffffffffff"],
    ["7fffffffffffffffffffffffffffffff", "bfffffffffffffffffffffffffffffff"],
    ["bfffffffffffffffffffffffffffffff", null],
  ]);
});

Deno.test("splitIdSpace: every id, GUID or not, falls in exactly one range; GUIDs spread evenly", () => {
  for (const n of [2, 3, 7, 16]) {
    const ranges = splitIdSpace(n);
    const perRange = new Array(n).fill(0);
    const ids = [
      ...Array.from({ length: 4000 }, randomId),
      "",
      "0",
      "ffffffffffffffffffffffffffffffff",
      "ffffffffffffffffffffffffffffffffz",
      "ZZZ",
      "zzz",
      "00000000000000000000000000000000",
    ];
    for (const id of ids) {
      const hits = ranges.flatMap((r, i) => inRange(id, r) ? [i] : []);
      assertEquals(hits.length, 1, `id ${JSON.stringify(id)} in ${n} ranges: ${hits}`);
      perRange[hits[0]]++;
    }
    for (const count of perRange) assert(count > 4000 / n / 2, `uneven spread over ${n}: ${perRange}`);
  }
});

Deno.test("splitIdSpace: rejects a count below 1", () => {
  assertThrows(() => splitIdSpace(0), RangeError);
  assertThrows(() => splitIdSpace(1.5), RangeError);
});

const HIGH = highWaterMark(Date.UTC(2026, 0, 2, 3, 4, 5), 1);
const cursor = (timestamp: string, sysId: string) => cursorFromOffset({ timestamp, sys_id: sysId })!;

Deno.test("backfill offset: a flat map of primitives that round-trips", () => {
  const state = {
    high: HIGH,
    ranges: [
      { cursor: null, done: false },
      { cursor: cursor("2025-01-01 00:00:00", "5".repeat(32)), done: false },
      { cursor: cursor("2025-06-01 00:00:00", "9".repeat(32)), done: true },
    ],
  };
  const offset = backfillToOffset(state);
  assertEquals(offset, {
    "backfill.high": "2026-01-02 03:04:04",
    "backfill.ranges": 3,
    "backfill.0.done": false,
    "backfill.1.timestamp": "2025-01-01 00:00:00",
    "backfill.1.sys_id": "5".repeat(32),
    "backfill.1.done": false,
    "backfill.2.timestamp": "2025-06-01 00:00:00",
    "backfill.2.sys_id": "9".repeat(32),
    "backfill.2.done": true,
  });
  for (const v of Object.values(offset)) assert(["string", "number", "boolean"].includes(typeof v));
  assertEquals(backfillFromOffset(JSON.parse(JSON.stringify(offset))), state);
});

Deno.test("backfill offset: none in a plain cursor offset or no offset", () => {
  assertEquals(backfillFromOffset(null), null);
  assertEquals(backfillFromOffset({ timestamp: "2025-01-01 00:00:00", sys_id: "a" }), null);
});

Deno.test("backfill offset: an invalid one is an error naming what is wrong", () => {
  const good = ParallelBackfill.start(HIGH, 2).offset();
  const bad = [
    [{ ...good, "backfill.high": "yesterday" }, "backfill.high"],
    [{ ...good, "backfill.ranges": 0 }, "backfill.ranges"],
    [{ ...good, "backfill.ranges": "2" }, "backfill.ranges"],
    [{ ...good, "backfill.1.timestamp": "2025-01-01 00:00:00" }, "range 1"],
  ] as const;
  for (const [offset, what] of bad) {
    const error = assertThrows(() => backfillFromOffset(offset), BackfillOffsetError);
    assert(error.message.includes(what), error.message);
  }
});

Deno.test("ParallelBackfill: ranges move and finish; pending, done and the handover cursor follow", () => {
  const b = ParallelBackfill.start(HIGH, 3);
  assertEquals(b.pending(), [0, 1, 2]);
  assertEquals(b.handoverCursor(), null);
  const first = b.offset();
  assert(b.offset() === first, "the same snapshot until the state changes");
  const late = cursor("2025-06-01 00:00:00", "1".repeat(32));
  const early = cursor("2025-01-01 00:00:00", "f".repeat(32));
  b.moveTo(0, late);
  b.moveTo(2, early);
  const second = b.offset();
  assert(second !== first, "a move gives a new snapshot");
  assertEquals(first["backfill.0.timestamp"], undefined, "an earlier snapshot is not changed by a move");
  assertEquals(second["backfill.0.timestamp"], "2025-06-01 00:00:00");
  b.finish(1);
  assertEquals(b.pending(), [0, 2]);
  assert(!b.done);
  b.finish(0);
  b.finish(2);
  assert(b.done);
  assertEquals(b.handoverCursor(), late, "the last row any range handled");
  assertEquals(backfillFromOffset(b.offset())!.ranges.map((r) => r.done), [true, true, true]);
});

Deno.test("ParallelBackfill: resumed from its offset, finished ranges stay finished", () => {
  const b = ParallelBackfill.start(HIGH, 4);
  b.moveTo(1, cursor("2025-01-01 00:00:00", "4".repeat(32)));
  b.finish(0);
  b.finish(3);
  const resumed = new ParallelBackfill(backfillFromOffset(b.offset())!);
  assertEquals(resumed.pending(), [1, 2]);
  assertEquals(resumed.range(1).cursor?.sysId, "4".repeat(32));
  assertEquals(resumed.high, HIGH);
  assertEquals(resumed.ids, splitIdSpace(4));
});
