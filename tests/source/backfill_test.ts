/**
 * Keyset paging through real HTTP: a backfill of 20,000 rows including a same-second bucket of 12,000 rows, with
 * pages of 5000, returns every row exactly once in cursor order; the journal never shows sysparm_offset, and only
 * the first page of a sweep asks for a count (pages after a full one send sysparm_no_count=true).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { insertRow, pollUntil, sourceConfig, startSim, startTask, stopTask } from "./support.ts";
import { formatGlideDateTime } from "../../src/source/glide_timestamp.ts";

Deno.test("backfill: 20,000 rows with a 12,000-row same-second bucket, batch 5000, each row once in cursor order", async () => {
  const sim = await startSim();
  try {
    const bucket = "2024-03-01 12:00:00";
    const base = Date.UTC(2024, 2, 1, 11, 0, 0);
    const expected: Array<[string, string]> = [];
    for (let i = 0; i < 4000; i++) {
      const ts = formatGlideDateTime(base + i * 500); // two rows per second before the bucket
      expected.push([
        ts,
        insertRow(sim, "incident", { sys_updated_on: ts, sys_created_on: ts, sys_mod_count: "0" }),
      ]);
    }
    for (let i = 0; i < 12000; i++) {
      expected.push([bucket, insertRow(sim, "incident", { sys_updated_on: bucket, sys_created_on: bucket })]);
    }
    for (let i = 0; i < 4000; i++) {
      const ts = formatGlideDateTime(Date.UTC(2024, 2, 1, 12, 0, 1) + i * 1000);
      expected.push([ts, insertRow(sim, "incident", { sys_updated_on: ts, sys_created_on: ts })]);
    }
    expected.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
    sim.journal.clear();

    const driven = await startTask(
      sourceConfig(sim, { inc: "incident" }, {
        "svc.source.batch.size": "5000",
        "svc.table.inc.fields": "sys_id,sys_updated_on,number",
        "svc.source.startup.probe": "false",
      }),
    );
    try {
      const records = await pollUntil(driven, (r) => r.length >= 20000);
      const got = records.map((r) => [(r.value as Record<string, string>).sys_updated_on, r.key as string]);
      assertEquals(got.length, 20000);
      assertEquals(new Set(got.map(([, id]) => id)).size, 20000, "every row exactly once");
      assertEquals(got, expected, "cursor order (timestamp, then sys_id)");
      assertEquals(records[19999].sourceOffset, {
        timestamp: expected[19999][0],
        sys_id: expected[19999][1],
      });
    } finally {
      await stopTask(driven);
    }

    const lists = sim.journal.find({ route: "GET /api/now/table/incident" });
    assert(lists.length >= 5, `expected at least 5 page requests, got ${lists.length}`);
    for (const e of lists) {
      assert(!("sysparm_offset" in e.params), `sysparm_offset sent: ${e.queryString}`);
      if (e.params.sysparm_query?.includes("^ORsys_id>")) {
        assertEquals(e.params.sysparm_no_count, "true", e.queryString);
      }
    }
    const pages = lists.filter((e) => e.params.sysparm_limit === "5000");
    assert(
      pages.some((e) => e.params.sysparm_query.includes(`sys_updated_on>${bucket}^ORsys_id>`)),
      "the bucket is drained by sys id",
    );
    for (const e of pages) {
      assert(e.params.sysparm_query.endsWith("^ORDERBYsys_updated_on^ORDERBYsys_id"), e.params.sysparm_query);
      assertEquals(e.params.sysparm_fields, "sys_id,sys_updated_on,number,sys_mod_count");
    }
  } finally {
    await sim.stop();
  }
});
