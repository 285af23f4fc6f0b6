/** The bound on page bodies a source task holds at once, across its tables (src/source/page_budget.ts). */
import { assertEquals, assertRejects } from "../support/assert.ts";
import { PageBudget } from "../../src/source/page_budget.ts";
import { pollUntil, sourceConfig, startSim, startTask, stopTask } from "./support.ts";

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("page budget: a page waits while the pages held and it would pass the budget; a release lets it go", async () => {
  const budget = new PageBudget(100);
  const first = await budget.acquire(60);
  first.settle(70);
  assertEquals(budget.heldBytes, 70);
  let second = false;
  const waiting = budget.acquire(40).then((t) => (second = true, t));
  await tick();
  assertEquals(second, false, "70 + 40 > 100");
  first.release();
  first.release(); // idempotent
  const ticket = await waiting;
  assertEquals(budget.heldBytes, 40);
  ticket.release();
  assertEquals(budget.heldBytes, 0);
});

Deno.test("page budget: with nothing held a page larger than the budget still goes, alone", async () => {
  const budget = new PageBudget(10);
  const big = await budget.acquire(50);
  let next = false;
  const waiting = budget.acquire(1).then((t) => (next = true, t));
  await tick();
  assertEquals(next, false);
  big.release();
  (await waiting).release();
  assertEquals(next, true);
});

Deno.test("page budget: a wait ends with the task's stop signal", async () => {
  const budget = new PageBudget(10);
  await budget.acquire(10);
  const stop = new AbortController();
  const waiting = budget.acquire(5, stop.signal);
  stop.abort(new Error("stopping"));
  await assertRejects(() => waiting, Error, "stopping");
});

Deno.test("source task: tables wait for the page budget instead of each holding a page; every row still arrives", async () => {
  const sim = await startSim({ seed: { incident: 300 } });
  try {
    // Three aliases of the table, each with its own query, so the journal tells their page requests apart.
    const aliases = { a: "incident", b: "incident", c: "incident" };
    const driven = await startTask(
      sourceConfig(sim, aliases, {
        "svc.source.batch.size": "20",
        "svc.table.a.query": "priority=1^ORpriority=2^ORpriority=3^ORpriority=4^ORpriority=5",
        "svc.table.b.query": "priority!=0",
        "svc.table.c.query": "active=true^ORactive=false",
      }),
      undefined,
      { pageBudgetBytes: 1 },
    );
    try {
      // Nobody polls. Each table queues its first page's records (one batch waits per table), then fetches its
      // next page and holds it until its queued batch is taken. Unbounded, all three would hold a second page
      // (six requests); with room for one page, one table holds one and the others wait (four requests).
      await new Promise((r) => setTimeout(r, 500));
      const pages = sim.journal.find({ route: "GET /api/now/table/incident" })
        .filter((e) => e.params.sysparm_limit !== "1");
      assertEquals(pages.length, 4, pages.map((e) => e.params.sysparm_query).join("\n"));
      const expected = 300 * 3;
      const records = await pollUntil(driven, (r) => r.length >= expected, 2000);
      assertEquals(records.length, expected);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
