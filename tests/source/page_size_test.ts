/** The page size after a response larger than svc.http.max.response.bytes: halved, then raised back. */
import { assert, assertEquals } from "../support/assert.ts";
import { pollUntil, sourceConfig, startSim, startTask, stopTask } from "./support.ts";

Deno.test("an oversized response halves the page size; pages that fit raise it back to the batch size", async () => {
  const sim = await startSim({ seed: { incident: 400 } });
  try {
    sim.faults.add({
      route: "GET /api/now/table/incident",
      fault: { kind: "oversized", bytes: 200_000 },
      skip: 2, // the startup probe and the first page go through
      times: 1,
    });
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.source.batch.size": "20",
      "svc.table.inc.fields": "sys_id,sys_updated_on",
      "svc.http.max.response.bytes": "100000",
    }));
    try {
      await pollUntil(driven, (r) => r.length >= 400);
      const limits = sim.journal.find({ route: "GET /api/now/table/incident" })
        .map((e) => e.params.sysparm_limit).filter((l) => l !== "1");
      const halvedAt = limits.indexOf("10");
      assert(halvedAt > 0, `never halved: ${limits.join(",")}`);
      assertEquals(limits.slice(halvedAt, halvedAt + 8), Array(8).fill("10"), limits.join(","));
      assertEquals(limits[halvedAt + 8], "20", `not raised back: ${limits.join(",")}`);
      assert(driven.context.lines.some((l) => l.msg === "page size raised back after pages that fit"));
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
