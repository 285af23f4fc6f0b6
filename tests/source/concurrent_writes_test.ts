/**
 * Backfill and streaming while the instance keeps writing (inserts and updates that move rows out of a sweep's
 * window): once writing stops, every row's final version has been delivered. The counts the sweep relies on
 * change under its feet here; they may only make it read more, never skip.
 */
import { assert } from "../support/assert.ts";
import {
  finalVersionsMissing,
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
