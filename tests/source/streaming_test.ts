/**
 * Streaming behaviour through real HTTP: the high-water mark (frozen instance clock, safety lag), overlap re-reads
 * with dedup suppression, restart from a committed offset, the replay-with-overlap migration, and a base query
 * with ^NQ.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import type { SourceRecord } from "../../src/connect/record.ts";
import {
  insertRow,
  overlapScene,
  pollUntil,
  pollUntilQuiet,
  sourceConfig,
  startSim,
  startTask,
  stopTask,
  TestContext,
} from "./support.ts";
import { formatGlideDateTime } from "../../src/source/glide_timestamp.ts";

const keys = (records: SourceRecord[]) => records.map((r) => r.key as string);

Deno.test("high-water mark: instance clock frozen, safety lag 2 s: the cursor waits until the clock moves, the tail sends the last seconds ahead", async () => {
  const sim = await startSim({ clock: { mode: "frozen", at: "2024-06-01 12:00:10" } });
  try {
    const at = (s: string) => insertRow(sim, "incident", { sys_updated_on: `2024-06-01 12:00:${s}` });
    const early = [at("07"), at("08")];
    const late = [at("09"), at("10")];
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.source.safety.lag.seconds": "2",
      "svc.table.inc.start.timestamp": "2024-06-01 12:00:00",
    }));
    try {
      await pollUntil(driven, (r) => r.length >= 4);
      await pollUntilQuiet(driven);
      assertEquals(keys(driven.records).slice(0, 2), early, "rows at or before clock - lag, in cursor order");
      assertEquals(
        keys(driven.records).slice(2).sort(),
        [...late].sort(),
        "the tail sent the last seconds ahead",
      );
      for (const r of driven.records) {
        assert(
          String(r.sourceOffset!.timestamp) <= "2024-06-01 12:00:08",
          `offset ${r.sourceOffset!.timestamp} passes the mark`,
        );
      }
      const pages = sim.journal.find((e) =>
        e.route === "GET /api/now/table/incident" && e.params.sysparm_limit !== "1" &&
        !e.params.sysparm_query.startsWith("sys_updated_on>2024-06-01 12:00:08^ORDERBY")
      );
      assert(pages.length >= 2, "several sweeps ran");
      for (const e of pages) {
        assertStringIncludes(e.params.sysparm_query, "sys_updated_on<=2024-06-01 12:00:08");
      }

      sim.clock.advance(2000);
      await pollUntilQuiet(driven);
      await pollUntilQuiet(driven);
      assertEquals(keys(driven.records).length, 4, "the sweep that reaches the tail's rows sends none again");
      assert(
        driven.context.counter("tablesync_source_duplicates_suppressed_total", {
          table: "incident",
          alias: "inc",
        }) >=
          2,
        "the tail's rows suppressed when the cursor reached them",
      );
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("overlap and dedup: re-reads are suppressed, updates and late rows in the overlap are delivered; a restart re-delivers the overlap only", async () => {
  const sim = await startSim();
  try {
    const { row, ids, config } = overlapScene(sim);
    const context = new TestContext();
    const driven = await startTask(config, context);
    let late: string;
    try {
      await pollUntil(driven, (r) => r.length >= 5);
      await pollUntil(driven, () =>
        context.counter("tablesync_source_duplicates_suppressed_total", {
          table: "incident",
          alias: "inc",
        }) >= 6);
      assertEquals(keys(driven.records), ids, "each row once, in order, though sweeps re-read the overlap");

      // An update moves row 3 into the last second; a row arrives late inside the overlap window.
      sim.table("incident").update(ids[3], { sys_updated_on: "2024-07-01 10:00:04", sys_mod_count: "1" }, {
        suppressAutoSysFields: true,
      });
      late = row(3, { short_description: "late" });
      const more = await pollUntil(driven, (r) => r.length >= 2);
      await pollUntilQuiet(driven);
      assertEquals(keys(driven.records).length, 7, "nothing else was delivered twice");
      assertEquals(new Set(keys(more)), new Set([ids[3], late]));
      const lateRecord = more.find((r) => r.key === late)!;
      const cursorAfter = [ids[3], ids[4]].sort()[1];
      assertEquals(
        lateRecord.sourceOffset,
        { timestamp: "2024-07-01 10:00:04", sys_id: cursorAfter },
        "a late row carries the current cursor: offsets never move back",
      );
    } finally {
      await stopTask(driven);
    }

    // Restart with the committed offsets: the overlap before the cursor comes again, nothing older.
    const again = await startTask(config, context.renew());
    try {
      await pollUntil(again, (r) => r.length >= 4);
      await pollUntilQuiet(again);
      assertEquals(new Set(keys(again.records)), new Set([ids[2], late, ids[3], ids[4]]));
      assertEquals(again.records.length, 4);
    } finally {
      await stopTask(again);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("migration: start.timestamp = T minus the overlap delivers every row after T, none before the overlap", async () => {
  const sim = await startSim();
  try {
    const T = Date.UTC(2024, 8, 1, 9, 0, 0);
    const byTime = new Map<number, string>();
    for (let s = -120; s <= 60; s += 10) {
      byTime.set(s, insertRow(sim, "incident", { sys_updated_on: formatGlideDateTime(T + s * 1000) }));
    }
    const overlap = 30;
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.table.inc.start.timestamp": formatGlideDateTime(T - overlap * 1000),
    }));
    try {
      await pollUntil(driven, (r) => r.length >= 10);
      await pollUntilQuiet(driven);
      const got = new Set(keys(driven.records));
      for (const [s, id] of byTime) {
        assertEquals(got.has(id), s >= -overlap, `row at T${s >= 0 ? "+" : ""}${s}s`);
      }
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("a base query with ^NQ gets the cursor predicates in every group", async () => {
  const sim = await startSim();
  try {
    const mk = (s: number, priority: string, active: string) =>
      insertRow(sim, "incident", {
        sys_updated_on: `2024-02-02 08:00:${String(s).padStart(2, "0")}`,
        priority,
        active,
      });
    const before = [mk(1, "1", "true"), mk(2, "2", "true")];
    const wanted = [mk(10, "1", "false"), mk(11, "2", "true")];
    const unwanted = [mk(12, "2", "false"), mk(13, "3", "true")];
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.table.inc.query": "priority=1^NQpriority=2^active=true",
      "svc.table.inc.start.timestamp": "2024-02-02 08:00:05",
      "svc.source.batch.size": "1",
    }));
    try {
      await pollUntil(driven, (r) => r.length >= 2);
      await pollUntilQuiet(driven);
      assertEquals(keys(driven.records), wanted);
      assert(!keys(driven.records).some((k) => before.includes(k) || unwanted.includes(k)));
      const first = sim.journal.find((e) => e.params.sysparm_limit === "1" && "sysparm_query" in e.params)
        .map((e) => e.params.sysparm_query)
        .find((q) => q.includes(">=2024-02-02 08:00:05"))!;
      const [g1, g2] = first.split("^NQ");
      assertStringIncludes(g1, "priority=1^sys_updated_on>=2024-02-02 08:00:05^sys_updated_on<=");
      assertStringIncludes(g2, "priority=2^active=true^sys_updated_on>=2024-02-02 08:00:05^sys_updated_on<=");
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
