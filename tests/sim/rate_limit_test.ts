/** The simulator's rate-limit rule: headers on every response, 429 past the budget, per user, per window. */
import { assert, assertEquals } from "../support/assert.ts";
import { assertRejects } from "../support/assert.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";
import { withSim } from "../support/sim.ts";
import { call } from "./limits_support.ts";
import { parseSimulateArgs } from "../../src/cli/simulate.ts";

Deno.test("a rate-limit rule sends its headers, denies past the budget with 429, counts users apart", async () => {
  const sim = await startSimulator({
    users: ["a:a", "b:b"],
    seed: { incident: 3 },
    rateLimit: { requests: 3, windowSeconds: 3600 },
  });
  try {
    const get = (user: string) =>
      fetch(`${sim.url}/api/now/table/incident?sysparm_limit=1`, {
        headers: { authorization: `Basic ${btoa(`${user}:${user}`)}`, accept: "application/json" },
      });
    for (let i = 0; i < 3; i++) {
      const ok = await get("a");
      await ok.body?.cancel();
      assertEquals(ok.status, 200);
      assertEquals(ok.headers.get("x-ratelimit-limit"), "3");
      const reset = Number(ok.headers.get("x-ratelimit-reset"));
      assertEquals(reset % 3600, 0);
      assert(reset * 1000 > Date.now(), "reset in the past");
      assert(ok.headers.get("x-ratelimit-rule"));
    }
    const denied = await get("a");
    assertEquals(denied.status, 429);
    assert(Number(denied.headers.get("retry-after")) >= 1);
    assertEquals((await denied.json()).error.message, "Rate limit exceeded");
    const other = await get("b");
    await other.body?.cancel();
    assertEquals(other.status, 200);
  } finally {
    await sim.stop();
  }
});

Deno.test("the budget comes back in the next window", async () => {
  const sim = await startSimulator({ users: ["a:a"], rateLimit: { requests: 1, windowSeconds: 1 } });
  try {
    const get = async () => {
      const res = await fetch(`${sim.url}/api/now/table/sys_user?sysparm_limit=1`, {
        headers: { authorization: `Basic ${btoa("a:a")}` },
      });
      await res.body?.cancel();
      return res;
    };
    let first = await get();
    // Start at the beginning of a window so the next request surely falls in the same one.
    while (first.status === 429) first = await get();
    const reset = Number(first.headers.get("x-ratelimit-reset"));
    if (Date.now() < reset * 1000 - 300) assertEquals((await get()).status, 429);
    await new Promise((r) => setTimeout(r, Math.max(0, reset * 1000 - Date.now()) + 50));
    assertEquals((await get()).status, 200);
  } finally {
    await sim.stop();
  }
});

Deno.test("simulate --rate-limit N/S sets the rule", async () => {
  assertEquals(
    (await parseSimulateArgs(["--rate-limit", "100/10"])) !== "help" &&
      (await parseSimulateArgs(["--rate-limit", "100/10"]) as { rateLimit?: unknown }).rateLimit,
    {
      requests: 100,
      windowSeconds: 10,
    },
  );
  assertEquals((await parseSimulateArgs(["--rate-limit=5"]) as { rateLimit?: unknown }).rateLimit, {
    requests: 5,
    windowSeconds: undefined,
  });
  let failed = false;
  try {
    await parseSimulateArgs(["--rate-limit", "0/10"]);
  } catch {
    failed = true;
  }
  assert(failed, "--rate-limit 0/10 accepted");
});

const RULE_HEADERS = ["x-ratelimit-limit", "x-ratelimit-reset", "x-ratelimit-rule"];

/** Statuses of `n` cookie-less list requests made one after the other. */
async function statuses(sim: Simulator, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const { res } = await call(sim);
    for (const name of RULE_HEADERS) assert(res.headers.get(name), `${res.status} without ${name}`);
    assertEquals(res.headers.get("x-ratelimit-remaining"), null);
    out.push(res.status);
  }
  return out;
}

Deno.test("counting lags: each node counts alone until the 30 s commit, so the budget overshoots, then 429s come together", async () => {
  await withSim(
    {
      seed: { incident: 2 },
      nodes: 2,
      rateLimit: { requests: 4 },
      clock: { mode: "frozen", at: "2024-03-01 12:00:10" },
    },
    async (sim) => {
      // Round robin over two nodes: each sees only its own uncommitted count, 4 each pass.
      assertEquals(await statuses(sim, 10), [200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
      sim.clock.advance(30_000); // the nodes commit 8: every node denies
      const { res } = await call(sim);
      assertEquals(res.status, 429);
      assertEquals(Number(res.headers.get("retry-after")), 3600 - 40);
      assertEquals(
        JSON.parse((await call(sim)).text).error.detail,
        "Rate limit of 4 requests per hour for Table API exceeded",
      );
      sim.clock.advance(3600_000); // the next hour
      assertEquals(await statuses(sim, 2), [200, 200]);
    },
  );
});

Deno.test("one node counts exactly; the commit interval is an option", async () => {
  await withSim(
    { seed: { incident: 2 }, semaphore: {}, rateLimit: { requests: 3, commitIntervalMs: 1000 } },
    async (sim) => {
      assertEquals(await statuses(sim, 4), [200, 200, 200, 429]);
      sim.clock.advance(1000);
      assertEquals(await statuses(sim, 1), [429]);
    },
  );
});

Deno.test("a node that checks only the committed counts lets one node overshoot until the commit", async () => {
  await withSim(
    { seed: { incident: 2 }, rateLimit: { requests: 3, commitIntervalMs: 10_000, countsOwnRequests: false } },
    async (sim) => {
      assertEquals(await statuses(sim, 5), [200, 200, 200, 200, 200]);
      sim.clock.advance(10_000);
      assertEquals(await statuses(sim, 2), [429, 429]);
    },
  );
});

Deno.test("the budget is shared with another integration using the same user", async () => {
  await withSim(
    {
      seed: { incident: 2 },
      rateLimit: { requests: 10, otherIntegration: { requestsAtWindowStart: 6, requestsPerSecond: 0.5 } },
      clock: { mode: "frozen", at: "2024-03-01 12:00:00" },
    },
    async (sim) => {
      assertEquals(await statuses(sim, 2), [200, 200]); // 6 + 2 of 10
      sim.clock.advance(4000); // the other one made 2 more: 10
      assertEquals(await statuses(sim, 1), [429]);
      sim.clock.advance(3600_000 - 4000); // a new window: it starts with 6 again
      assertEquals(await statuses(sim, 5), [200, 200, 200, 200, 429]);
    },
  );
});

Deno.test("simulate --rate-limit-commit-ms, --rate-limit-shared, --rate-limit-shared-rate", async () => {
  assertEquals(
    await parseSimulateArgs([
      "--rate-limit",
      "100",
      "--rate-limit-commit-ms",
      "500",
      "--rate-limit-committed-only",
      "--rate-limit-shared",
      "40",
      "--rate-limit-shared-rate=0.25",
    ]),
    {
      port: 8089,
      rateLimit: {
        requests: 100,
        windowSeconds: undefined,
        commitIntervalMs: 500,
        countsOwnRequests: false,
        otherIntegration: { requestsAtWindowStart: 40, requestsPerSecond: 0.25 },
      },
    },
  );
  const refused = await assertRejects(() => parseSimulateArgs(["--rate-limit-shared", "4"]));
  assert(String(refused).includes("need --rate-limit"), String(refused));
});
