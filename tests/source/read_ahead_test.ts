/**
 * Reading the next page while one is handled (TablePoller's read ahead): the next page is asked for before the
 * last one's records are taken, every row arrives once, and no request is made that the sweep would not have made.
 */
import { assertEquals } from "../support/assert.ts";
import { pollUntil, sourceConfig, startSim, startTask, stopTask } from "./support.ts";

Deno.test("read ahead: the next full page is asked for while the last one waits; no request more than the pages", async () => {
  const sim = await startSim({ seed: { incident: 100 } });
  try {
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, { "svc.source.batch.size": "20" }));
    try {
      const pages = () =>
        sim.journal.find({ route: "GET /api/now/table/incident" }).filter((e) =>
          e.params.sysparm_limit !== "1"
        );
      // Nobody polls. Page 1's records wait on the queue and page 2, read ahead while page 1 was handled, waits
      // behind them with page 3 asked for meanwhile; without reading ahead page 3 would wait for page 1 to be
      // taken (two requests, not three).
      await new Promise((r) => setTimeout(r, 500));
      assertEquals(pages().length, 3, pages().map((e) => e.params.sysparm_query).join("\n"));
      const records = await pollUntil(driven, (r) => r.length >= 100, 2000);
      assertEquals(new Set(records.map((r) => r.key)).size, 100);
      assertEquals(records.length, 100);
      // Five full pages; the count of the first says the fifth is the last: no trailing page, none read ahead.
      // (Later sweeps, after the poll interval, re-read the overlap: they end at a later high-water mark.)
      const mark = /sys_updated_on<=[^^]+/.exec(pages()[0].params.sysparm_query)![0];
      const firstSweep = pages().filter((e) => e.params.sysparm_query.includes(mark));
      assertEquals(firstSweep.length, 5, firstSweep.map((e) => e.params.sysparm_query).join("\n"));
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
