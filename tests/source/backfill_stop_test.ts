/**
 * Stopping a task mid-way through a parallel backfill (`svc.source.backfill.parallelism=4`) against a simulator
 * with latency: `stop()` resolves whatever the ranges were doing (pages read and waiting their turn to be
 * handled, a batch waiting for `poll()`, requests in flight). Pages read before the stop used to be handled after
 * it and queue records nobody would take, so the next page's handling waited on them for ever.
 */
import { assert } from "../support/assert.ts";
import { settlesWithin } from "../../src/common/delay.ts";
import { pollUntil, sourceConfig, startSim, startTask, TestContext } from "./support.ts";

/** Longer than any stop takes; reaching it means stop() hangs. */
const HANG_BOUND_MS = 10_000;

Deno.test("a parallel backfill stopped mid-way: stop() resolves, every time", async () => {
  const sim = await startSim({ seed: { incident: 3000 }, latencyMs: 5 });
  try {
    const raw = sourceConfig(sim, { inc: "incident" }, {
      "svc.source.batch.size": "50",
      "svc.source.backfill.parallelism": "4",
      "svc.http.max.concurrent.requests": "4",
      "svc.source.startup.probe": "false",
      "svc.table.inc.fields": "sys_id,sys_updated_on,sys_mod_count",
    });
    for (let round = 0; round < 30; round++) {
      const context = new TestContext();
      const driven = await startTask(raw, context);
      // Vary where the stop lands: before any poll (ranges waiting on the queue), after a few polls, or after a
      // delay with nobody polling (pages read and waiting their turn).
      const polls = round % 3;
      if (polls > 0) await pollUntil(driven, (r) => r.length >= polls * 50 * (1 + (round % 5)));
      await new Promise((resolve) => setTimeout(resolve, (round * 7) % 40));
      context.abort();
      const stopped = await settlesWithin(driven.task.stop(), HANG_BOUND_MS);
      assert(stopped, `round ${round}: stop() did not resolve within ${HANG_BOUND_MS} ms`);
    }
  } finally {
    await sim.stop();
  }
});
