/** The Aggregate API's count route (`/api/now/stats/<table>`). */
import { assertEquals } from "../support/assert.ts";
import { get } from "./helpers.ts";
import { withSim } from "../support/sim.ts";

Deno.test("stats: the Aggregate API counts a query's rows before access control, like X-Total-Count", async () => {
  await withSim({ seed: { problem: 40 } }, async (sim) => {
    const ids = sim.table("problem").sysIds();
    sim.faults.add({ table: "problem", fault: { kind: "acl_hide", sysIds: ids.slice(0, 10) } });
    const all = await get(sim, "/api/now/stats/problem", { sysparm_count: "true" });
    assertEquals([all.status, all.body], [200, { result: { stats: { count: "40" } } }]);
    const some = await get(sim, "/api/now/v1/stats/problem", {
      sysparm_count: "true",
      sysparm_query: `sys_id=${ids[0]}^ORsys_id=${ids[20]}`,
    });
    assertEquals(some.body.result.stats.count, "2");
    assertEquals((await get(sim, "/api/now/stats/problem", {})).body, { result: { stats: {} } });
    assertEquals((await get(sim, "/api/now/stats/no_such_table", { sysparm_count: "true" })).status, 400);
    // The API version is not part of the route key.
    assertEquals(sim.journal.find({ route: "GET /api/now/stats/problem" }).length, 3);
  });
});
