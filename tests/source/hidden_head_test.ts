/**
 * A table whose first rows are hidden by access control (the instance applies the limit before it drops them):
 * the backfill costs at most 1.5 times the raw page floor (rows before access control ÷ page size), finds its
 * first readable row without searching from 1970 (it asks the Aggregate API where the rows begin), the progress
 * counts readable rows, and the startup probe does not call the table empty. Requests are counted in the
 * simulator's journal and printed.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { Simulator } from "../../src/sim/mod.ts";
import { seedHiddenHead } from "./hidden_head_fixture.ts";
import {
  pollUntil,
  pollUntilQuiet,
  ProgressContext,
  sourceConfig,
  startSim,
  startTask,
  stopTask,
  TestContext,
} from "./support.ts";

const LIMIT = 50;
const ROWS = 2000;

/** The table's page requests and Aggregate API requests other than the progress counts, in order. */
function sweepRequests(sim: Simulator) {
  return sim.journal.find((e) =>
    (e.route === "GET /api/now/table/incident" && e.params.sysparm_limit === String(LIMIT)) ||
    (e.route === "GET /api/now/stats/incident" && e.params.sysparm_min_fields !== undefined)
  );
}

Deno.test("a table whose first 30 % is hidden: requests within 1.5 × the raw page floor, first row without a search from 1970", async () => {
  const sim = await startSim();
  try {
    const table = seedHiddenHead(sim, "incident", { rows: ROWS, head: 600, every: 10 });
    // One sweep only: the poll interval outlasts the test.
    const driven = await startTask(
      sourceConfig(sim, { inc: "incident" }, {
        "svc.source.batch.size": String(LIMIT),
        "svc.source.poll.interval.ms": "600000",
      }),
    );
    try {
      await pollUntil(driven, () => driven.records.length >= table.readable.length);
      await pollUntilQuiet(driven);
      assertEquals(driven.records.map((r) => r.key), table.readable);
      assert(driven.context.lines.some((l) => l.msg === "sweep done"), "the backfill's sweep ended");
      const requests = sweepRequests(sim);
      const firstRows = requests.findIndex((e) => e.rowsReturned > 0);
      const floor = ROWS / LIMIT;
      const backfill = requests.length;
      console.log(
        `hidden head of 600 of ${ROWS} rows (+10 % scattered), limit ${LIMIT}: ${backfill} requests for the ` +
          `backfill (floor ${floor}), ${firstRows} before the first readable row`,
      );
      assert(backfill <= 1.5 * floor, `${backfill} requests, more than 1.5 × ${floor}`);
      // The head is 12 raw pages: finding the first readable row costs about that, not a search from 1970.
      assert(firstRows <= 1.5 * (600 / LIMIT) + 2, `${firstRows} requests before the first row`);
      assert(
        requests.some((e) => e.params.sysparm_min_fields === "sys_updated_on"),
        "asked where rows begin",
      );
      // The sweep's pages and probes (the tail after it reads past the mark: no lower bound of its own).
      const lowerBounds = requests.slice(2).flatMap((e) => {
        const from = /sys_updated_on>=([^^]+)/.exec(e.params.sysparm_query);
        return from ? [from[1]] : [];
      });
      assert(lowerBounds.every((ts) => ts >= table.first), `a probe started before ${table.first}`);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("a parallel backfill's ranges with a hidden head ask where their rows begin, not search from 1970", async () => {
  const sim = await startSim();
  try {
    const table = seedHiddenHead(sim, "incident", { rows: ROWS, head: 600, every: 10 });
    const driven = await startTask(
      sourceConfig(sim, { inc: "incident" }, {
        "svc.source.batch.size": String(LIMIT),
        "svc.source.backfill.parallelism": "2",
        "svc.source.poll.interval.ms": "600000",
      }),
    );
    try {
      await pollUntil(driven, () => driven.records.length >= table.readable.length);
      await pollUntilQuiet(driven);
      assertEquals(new Set(driven.records.map((r) => r.key)), new Set(table.readable));
      const requests = sweepRequests(sim);
      const mins = requests.filter((e) => e.params.sysparm_min_fields === "sys_updated_on");
      assertEquals(mins.length, 2, "one per range");
      const probes = requests.filter((e) =>
        e.params.sysparm_limit && !e.params.sysparm_query.includes(">=1970")
      );
      assert(
        probes.every((e) => /sys_updated_on>=([^^]+)/.exec(e.params.sysparm_query)![1] >= table.first),
        `a probe started before ${table.first}`,
      );
      console.log(
        `parallel backfill of the hidden head, 2 ranges: ${requests.length} requests (floor ${ROWS / LIMIT})`,
      );
      assert(requests.length <= 1.5 * (ROWS / LIMIT) + 4, `${requests.length} requests`);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("progress counts readable rows: a quarter hidden, rows remaining scaled by the share the pages showed", async () => {
  // Latency makes the backfill last long enough for reports to be taken during it.
  const sim = await startSim({ latencyMs: 15 });
  try {
    const table = seedHiddenHead(sim, "incident", { rows: ROWS, head: 0, every: 4 });
    const context = new ProgressContext();
    const driven = await startTask(
      sourceConfig(sim, { inc: "incident" }, { "svc.source.batch.size": String(LIMIT) }),
      context,
      { progress: { reportIntervalMs: 40, countIntervalMs: 40 } },
    );
    try {
      await pollUntil(driven, () => driven.records.length >= table.readable.length);
      const during = context.reports.flat().filter((t) =>
        t.phase === "backfill" && t.rows_remaining !== null && t.rows_emitted >= 4 * LIMIT
      );
      assert(during.length > 0, "no report during the backfill");
      for (const t of during) {
        const total = t.rows_emitted + t.rows_remaining!;
        // Readable: 1500 of 2000 rows; counting hidden rows would say about 2000.
        assert(
          total > 0.85 * table.readable.length && total < 1.1 * table.readable.length,
          JSON.stringify(t),
        );
      }
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("startup probe: a table whose first row is hidden is not called empty; an empty one is", async () => {
  const sim = await startSim();
  try {
    seedHiddenHead(sim, "incident", { rows: 20, head: 1 });
    const context = new TestContext();
    const driven = await startTask(sourceConfig(sim, { inc: "incident", prb: "problem" }), context);
    try {
      const probe = (table: string) =>
        context.lines.find((l) => l.table === table && String(l.msg).startsWith("startup probe:"))?.msg;
      assertEquals(
        probe("incident"),
        "startup probe: table incident (alias inc) counts 20 rows, but its first row is hidden from the " +
          "integration user by access control",
      );
      assertEquals(probe("problem"), "startup probe: table problem (alias prb) is empty");
      await pollUntil(driven, () => driven.records.length >= 19);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
