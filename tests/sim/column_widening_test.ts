/** A dictionary-encoded column keeps the value that makes it widen its codes (the 256th distinct value). */
import { assertEquals } from "../support/assert.ts";
import { withSim } from "../support/sim.ts";

Deno.test("the 256th distinct value of a dictionary-encoded column is stored", async () => {
  await withSim({}, (sim) => {
    const table = sim.table("incident");
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push(table.insert({ subcategory: `value ${i}` }).sys_id);
    assertEquals(ids.map((id) => table.get(id)?.subcategory), ids.map((_, i) => `value ${i}`));
  });
});
