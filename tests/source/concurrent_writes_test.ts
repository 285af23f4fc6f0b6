/**
 * Backfill and streaming while the instance keeps writing (inserts and updates that move rows out of a sweep's
 * window): once writing stops, every row's final version has been delivered. The counts the sweep relies on
 * change under its feet here; they may only make it read more, never skip.
 */
import { assert, assertEquals } from "../support/assert.ts";
import {
  finalVersionsMissing,
  pollUntil,
  pollWhileWriting,
  sourceConfig,
  startSim,
  startTask,
  stopTask,
} from "./support.ts";

Deno.test("concurrent inserts and updates during backfill and streaming: every final version delivered", async () => {
  const sim = await startSim({ seed: { incident: 5000 } });
  try {
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.source.batch.size": "500",
      "svc.source.safety.lag.seconds": "1",
      "svc.table.inc.fields": "sys_id,sys_updated_on,number",
    }));
    try {
      await pollWhileWriting(sim, driven, {
        table: "incident",
        rowsPerSecond: 400,
        insertRatio: 0.3,
        ms: 4000,
      });
      const missing = finalVersionsMissing(sim, "incident", driven.records);
      const table = sim.table("incident");
      assert(missing.length === 0, `${missing.length} final versions missing of ${table.count}`);
    } finally {
      await stopTask(driven);
    }
  } finally {
    sim.writer.stop();
    await sim.stop();
  }
});

Deno.test("a row updated while its page is being read never moves the cursor past rows not read yet", async () => {
  // The instance picks a page's rows, then renders them: a row updated in between comes back with its new
  // sys_updated_on, after the sweep's high-water mark. A cursor moved there would pass the rest of the window,
  // and a crash after its commit would lose those rows.
  const sim = await startSim({ seed: { incident: 300 } });
  try {
    const table = sim.table("incident");
    const ids = table.sysIds(); // in cursor order
    const moved = ids[250]; // rendered in the page's third chunk of 100 rows
    // Each chunk of 100 rows takes 500 ms: the row is rendered a second after the page was picked.
    sim.faults.add({ route: "GET /api/now/table/incident", fault: { kind: "latency", perRowMs: 5 } });
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.source.batch.size": "300",
      "svc.source.safety.lag.seconds": "1",
      "svc.table.inc.fields": "sys_id,sys_updated_on,number",
    }));
    try {
      const pagePicked = (async () => {
        while (!sim.journal.entries().some((e) => e.params.sysparm_limit === "300")) {
          await new Promise((r) => setTimeout(r, 5));
        }
        table.update(moved, { short_description: "updated while its page was read" });
      })();
      await pollUntil(driven, () => finalVersionsMissing(sim, "incident", driven.records).length === 0);
      await pagePicked;
      assertEquals(
        driven.context.counter("tablesync_source_rows_changed_during_read_total", {
          table: "incident",
          alias: "inc",
        }),
        1,
        "the updated row came back in the page it was picked for",
      );
      // Offsets never pass a version emitted later: every record's offset is at or before the row cursor of
      // every record after it.
      const cursors = driven.records.map((r) => {
        const v = r.value as Record<string, string>;
        return {
          at: `${v.sys_updated_on}\u0000${v.sys_id}`,
          offset: `${r.sourceOffset!.timestamp}\u0000${r.sourceOffset!.sys_id}`,
        };
      });
      for (let i = 0; i < cursors.length; i++) {
        for (let j = i + 1; j < cursors.length; j++) {
          assert(
            cursors[i].offset <= cursors[j].at,
            `record ${i}'s offset ${cursors[i].offset} passes record ${j} (${
              cursors[j].at
            }), emitted after it`,
          );
        }
      }
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
