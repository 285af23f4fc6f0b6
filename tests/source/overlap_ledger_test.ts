/**
 * The versions sent inside the overlap window, carried by the final offset of a graceful stop
 * (src/source/overlap_ledger.ts): what the list holds, and a restarted task that seeds its dedup cache with it
 * (through real HTTP against the simulator) sends nothing of the overlap again but still a late row, and hands
 * the list on when it stops again before its cursor moved.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { backfillToOffset, inIdRange, splitIdSpace } from "../../src/source/parallel_backfill.ts";
import { SourceRecord } from "../../src/connect/record.ts";
import { cursorToOffset } from "../../src/source/cursor.ts";
import { DedupCache } from "../../src/source/dedup_cache.ts";
import { parseGlideDateTime } from "../../src/source/glide_timestamp.ts";
import {
  MAX_OVERLAP_SENT,
  OFFSET_OVERLAP_SENT,
  OverlapLedger,
  overlapSentFromOffset,
} from "../../src/source/overlap_ledger.ts";
import {
  overlapScene,
  pollAcked,
  pollUntilQuiet,
  startSim,
  startTask,
  stopGracefully,
  stopTask,
  TestContext,
} from "./support.ts";

const at = (timestamp: string, sysId: string) => ({
  timestamp,
  sysId,
  epochMs: parseGlideDateTime(timestamp),
});
const record = () => new SourceRecord({ topic: "t", value: null });

Deno.test("overlap ledger: the final offset lists the acknowledged versions from the overlap window on, nothing else", () => {
  const ledger = new OverlapLedger(2, 100);
  const rows = [
    ["2024-07-01 10:00:01", "a", "0"], // before the window (cursor − 2 s)
    ["2024-07-01 10:00:02", "b", "0"],
    ["2024-07-01 10:00:03", "c", "4"],
    ["2024-07-01 10:00:04", "d", "0"], // the cursor
    ["2024-07-01 10:00:04", "e", "0"], // after the committed cursor, acknowledged: read again by the next run
    ["2024-07-01 10:00:03", "f", "0"], // built, never acknowledged
  ] as const;
  const built = rows.map(([ts, id, mod]) => {
    const r = record();
    ledger.built(r, DedupCache.versionKey(ts, id, mod), at(ts, id));
    return r;
  });
  for (const r of built.slice(0, 5)) ledger.whenAcknowledged(r)?.();
  assertEquals(ledger.whenAcknowledged(record()), null, "a record it never saw built");
  const committed = cursorToOffset(at("2024-07-01 10:00:04", "d"));
  const final = ledger.finalOffset(committed);
  assertEquals(overlapSentFromOffset(final), [
    "2024-07-01 10:00:02|b|0",
    "2024-07-01 10:00:03|c|4",
    "2024-07-01 10:00:04|d|0",
    "2024-07-01 10:00:04|e|0",
  ]);
  assertEquals({ ...final, [OFFSET_OVERLAP_SENT]: undefined }, {
    ...committed,
    [OFFSET_OVERLAP_SENT]: undefined,
  });
  assertEquals(typeof final[OFFSET_OVERLAP_SENT], "string", "offsets hold primitive values only");
});

Deno.test("overlap ledger: over the cap, or nothing in the window, the committed offset is kept as it is", () => {
  const ledger = new OverlapLedger(0, 10_000);
  for (let i = 0; i <= MAX_OVERLAP_SENT; i++) {
    const r = record();
    const id = `id${String(i).padStart(5, "0")}`;
    ledger.built(r, DedupCache.versionKey("2024-07-01 10:00:04", id, "0"), at("2024-07-01 10:00:04", id));
    ledger.whenAcknowledged(r)?.();
  }
  const committed = cursorToOffset(at("2024-07-01 10:00:04", "id99999"));
  assertEquals(ledger.finalOffset(committed), committed, `${MAX_OVERLAP_SENT + 1} versions: left out`);
  const later = cursorToOffset(at("2024-07-01 10:00:09", "x"));
  assertEquals(ledger.finalOffset(later), later, "none inside the window");
  assertEquals(overlapSentFromOffset({ [OFFSET_OVERLAP_SENT]: "not json" }), []);
  assertEquals(overlapSentFromOffset(null), []);
});

Deno.test("overlap ledger: holds the latest `capacity` acknowledged versions, a version acknowledged again counting as new", () => {
  const ledger = new OverlapLedger(3600, 3);
  const ack = (id: string) => {
    const r = record();
    ledger.built(r, DedupCache.versionKey("2024-07-01 10:00:04", id, "0"), at("2024-07-01 10:00:04", id));
    ledger.whenAcknowledged(r)?.();
  };
  // Many rounds of dropping and rebuilding its order; "a" acknowledged again every third version stays in.
  for (let i = 0; i < 40; i++) {
    ack(`v${String(i).padStart(2, "0")}`);
    if (i % 3 === 0) ack("a");
  }
  ack("v37"); // gone already: comes back as the newest, and "v38" is dropped instead of it
  const committed = cursorToOffset(at("2024-07-01 10:00:04", "zz"));
  assertEquals(overlapSentFromOffset(ledger.finalOffset(committed)), [
    "2024-07-01 10:00:04|v39|0",
    "2024-07-01 10:00:04|a|0",
    "2024-07-01 10:00:04|v37|0",
  ]);
});

Deno.test("overlap ledger: a version carried by several records counts once all are acknowledged; by none, at once", () => {
  const ledger = new OverlapLedger(60, 100);
  const cursor = at("2024-07-01 10:00:04", "d");
  const marker = record(), empty = record();
  ledger.built(marker, DedupCache.versionKey(cursor.timestamp, "d", ""), cursor);
  ledger.built(empty, DedupCache.versionKey("2024-07-01 10:00:03", "c", ""), at("2024-07-01 10:00:03", "c"));
  const [deletion, tombstone] = [record(), record()];
  ledger.carry(marker, [deletion, tombstone]);
  ledger.carry(empty, []);
  assertEquals(ledger.whenAcknowledged(marker), null, "the marker itself goes nowhere");
  const committed = cursorToOffset(cursor);
  ledger.whenAcknowledged(tombstone)!();
  assertEquals(overlapSentFromOffset(ledger.finalOffset(committed)), ["2024-07-01 10:00:03|c|"]);
  ledger.whenAcknowledged(deletion)!();
  assertEquals(overlapSentFromOffset(ledger.finalOffset(committed)), [
    "2024-07-01 10:00:03|c|",
    "2024-07-01 10:00:04|d|",
  ]);
});

Deno.test("overlap ledger: during a parallel backfill, the window of each unfinished range, its own sys ids only", () => {
  const ledger = new OverlapLedger(2, 100);
  const [low, high] = splitIdSpace(2);
  const lowId = (c: string) => c.repeat(32), highId = (c: string) => `f${c.repeat(31)}`;
  const rows = [
    ["2024-07-01 10:00:03", lowId("1")], // range 0, in its window
    ["2024-07-01 10:00:09", lowId("2")], // range 0, after its cursor
    ["2024-07-01 10:00:04", highId("3")], // range 1: finished, not read again
  ] as const;
  for (const [ts, id] of rows) {
    const r = record();
    ledger.built(r, DedupCache.versionKey(ts, id, "0"), at(ts, id));
    ledger.whenAcknowledged(r)?.();
  }
  assert(inIdRange(lowId("1"), low) && inIdRange(highId("3"), high));
  const committed = backfillToOffset({
    high: { epochMs: parseGlideDateTime("2024-07-01 11:00:00"), text: "2024-07-01 11:00:00" },
    ranges: [
      { cursor: at("2024-07-01 10:00:04", lowId("1")), done: false },
      { cursor: at("2024-07-01 10:00:04", highId("3")), done: true },
    ],
  });
  assertEquals(overlapSentFromOffset(ledger.finalOffset(committed)), [`2024-07-01 10:00:03|${lowId("1")}|0`]);
});

Deno.test("graceful stop: the next run seeds its dedup cache from the final offset; only a late row in the overlap comes again", async () => {
  const sim = await startSim();
  try {
    const { row, ids, config } = overlapScene(sim);
    const context = new TestContext();
    const first = await startTask(config, context);
    try {
      await pollAcked(first, (r) => r.length >= 5);
      assertEquals(first.records.map((r) => r.key), ids);
    } finally {
      await stopGracefully(first);
    }
    const final = [...context.offsets.values()][0];
    assertEquals(overlapSentFromOffset(final).length, 3, "rows 2, 3 and 4 lie in the overlap window");

    // While stopped: a row arrives late inside the overlap, and row 2 is updated in place (same second).
    const late = row(3, { short_description: "late" });
    sim.table("incident").update(ids[2], { sys_mod_count: "1" }, { suppressAutoSysFields: true });
    const second = await startTask(config, context.renew());
    try {
      const again = await pollAcked(second, (r) => r.length >= 2);
      assertEquals(new Set(again.map((r) => r.key)), new Set([late, ids[2]]), "the late row and the update");
      assertEquals(again.length, 2, "nothing of the overlap sent again");
    } finally {
      await stopGracefully(second);
    }
    // The second run's cursor did not move: its final offset hands on the first run's versions with its own.
    assertEquals(overlapSentFromOffset([...context.offsets.values()][0]).length, 5);
    const third = await startTask(config, context.renew());
    try {
      assertEquals(await pollUntilQuiet(third, 5), [], "nothing sent again by a third run");
    } finally {
      await stopTask(third);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("overlap ledger: a parallel backfill's offset lists the versions near each unfinished range's cursor and the high mark", () => {
  const ledger = new OverlapLedger(2, 100);
  const rows = [
    ["2024-07-01 09:00:00", "1a"], // range 0's cursor: in its window (range 0 holds sys ids below 8…)
    ["2024-07-01 08:59:57", "1b"], // before range 0's window
    ["2024-07-01 09:30:00", "c"], // range 1 is done: its window is not re-read
    ["2024-07-01 10:00:00", "d"], // the high mark's second: the streaming cursor re-reads it
    ["2024-07-01 09:59:59", "e"], // inside the high mark's window
  ] as const;
  for (const [ts, id] of rows) {
    const r = record();
    ledger.built(r, DedupCache.versionKey(ts, id, "0"), at(ts, id));
    ledger.whenAcknowledged(r)?.();
  }
  const committed = backfillToOffset({
    high: { text: "2024-07-01 10:00:00", epochMs: parseGlideDateTime("2024-07-01 10:00:00") },
    ranges: [
      { cursor: at("2024-07-01 09:00:00", "1a"), done: false },
      { cursor: at("2024-07-01 09:30:00", "c"), done: true },
    ],
  });
  assertEquals(overlapSentFromOffset(ledger.finalOffset(committed)).sort(), [
    "2024-07-01 09:00:00|1a|0",
    "2024-07-01 09:59:59|e|0",
    "2024-07-01 10:00:00|d|0",
  ]);
});

Deno.test("overlap ledger: a version carried to the records that replace its marker is remembered once the last is acknowledged", () => {
  const ledger = new OverlapLedger(2, 100);
  const marker = record();
  const [tombstone, upsert] = [record(), record()];
  ledger.built(
    marker,
    DedupCache.versionKey("2024-07-01 10:00:04", "a", "0"),
    at("2024-07-01 10:00:04", "a"),
  );
  ledger.carry(marker, [tombstone, upsert]);
  assertEquals(ledger.whenAcknowledged(marker), null, "the marker itself never goes to Kafka");
  ledger.whenAcknowledged(tombstone)!();
  const committed = cursorToOffset(at("2024-07-01 10:00:04", "a"));
  assertEquals(overlapSentFromOffset(ledger.finalOffset(committed)), [], "one of two acknowledged");
  ledger.whenAcknowledged(upsert)!();
  assertEquals(overlapSentFromOffset(ledger.finalOffset(committed)), ["2024-07-01 10:00:04|a|0"]);
});
