/**
 * Paging past rows hidden by access control (the instance applies the limit before it drops them): runs of 1,
 * limit-1, limit and 3×limit hidden rows at the start, inside a same-second bucket and at the end; every readable
 * row is delivered exactly once, and the requests of each scenario are printed.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { HIDDEN_RUNS_CLOCK, seedHiddenRuns } from "./hidden_runs_fixture.ts";
import { pollUntil, pollUntilQuiet, sourceConfig, startSim, startTask, stopTask } from "./support.ts";

const LIMIT = 10;

for (const length of [0, 1, LIMIT - 1, LIMIT, 3 * LIMIT]) {
  Deno.test(`hidden runs of ${length} rows at the start, in a same-second bucket and at the end: every readable row once`, async () => {
    const sim = await startSim({ clock: { mode: "frozen", at: HIDDEN_RUNS_CLOCK } });
    try {
      const table = seedHiddenRuns(sim, "incident", length);
      const driven = await startTask(
        sourceConfig(sim, { inc: "incident" }, { "svc.source.batch.size": String(LIMIT) }),
      );
      try {
        await pollUntil(driven, (r) => r.length >= table.readable.length);
        // Probing the hidden run at the end may take longer than a few quiet polls on a busy machine.
        await pollUntil(driven, () => driven.context.lines.some((l) => l.msg === "sweep done"));
        await pollUntilQuiet(driven);
        assertEquals(driven.records.map((r) => r.key), table.readable);
        const sweeps = driven.context.lines.filter((l) => l.msg === "sweep done") as unknown as Array<
          { pages: number; counted: number; splits: number }
        >;
        const [first, later] = [sweeps[0], sweeps.at(-1)!];
        console.log(
          `hidden runs of ${length}: ${table.readable.length} readable of ${table.ordered.length} rows; ` +
            `first sweep ${first.pages} requests (${first.counted} counted, ${first.splits} splits), ` +
            `each later sweep ${later.pages} (${later.counted}, ${later.splits})`,
        );
        if (length === 0) {
          // Without hidden rows a sweep costs what it always did: the full pages and at most one short page.
          const before = Math.floor(table.ordered.length / LIMIT) + 1;
          assert(first.pages <= before, `first sweep took ${first.pages} requests, more than ${before}`);
          assertEquals(later.pages, 1);
        }
      } finally {
        await stopTask(driven);
      }
    } finally {
      await sim.stop();
    }
  });
}
