/** The simulator's rate-limit rule: headers on every response, 429 past the budget, per user, per window. */
import { assert, assertEquals } from "../support/assert.ts";
import { startSimulator } from "../../src/sim/mod.ts";
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
