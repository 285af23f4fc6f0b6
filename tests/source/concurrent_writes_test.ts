/**
 * Backfill and streaming while the instance keeps writing (inserts and updates that move rows out of a sweep's
 * window): once writing stops, every row's final version has been delivered. The counts the sweep relies on
 * change under its feet here; they may only make it read more, never skip.
 */
import { assert } from "../support/assert.ts";
import { pollUntilQuiet, sourceConfig, startSim, startTask, stopTask } from "./support.ts";

Deno.test("concurrent inserts and updates during backfill and streaming: every final version delivered", async () => {
  const sim = await startSim({ seed: { incident: 5000 } });
  try {
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.source.batch.size": "500",
      "svc.source.safety.lag.seconds": "1",
      "svc.table.inc.fields": "sys_id,sys_updated_on,number",
    }));
    try {
      sim.writer.start({ rowsPerSecond: 400, table: "incident", insertRatio: 0.3 });
      const until = Date.now() + 4000;
      while (Date.now() < until) {
        const batch = await driven.task.poll();
        driven.context.commit(batch);
        driven.records.push(...batch);
      }
      sim.writer.stop();
      await new Promise((r) => setTimeout(r, 2500)); // past the safety lag
      await pollUntilQuiet(driven, 15);
      const have = new Set(driven.records.map((r) => {
        const v = r.value as Record<string, string>;
        return `${r.key}/${v.sys_mod_count}`;
      }));
      const table = sim.table("incident");
      const missing = table.sysIds().filter((id) => !have.has(`${id}/${table.get(id)!.sys_mod_count}`));
      assert(missing.length === 0, `${missing.length} final versions missing of ${table.count}`);
    } finally {
      await stopTask(driven);
    }
  } finally {
    sim.writer.stop();
    await sim.stop();
  }
});
