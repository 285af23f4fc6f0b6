/** Transaction quotas (instance-limits.md §1): 200 with a cut body in both shapes, 500 while queued, nothing done. */
import { assert, assertEquals } from "../support/assert.ts";
import { withSim } from "../support/sim.ts";
import { call } from "./limits_support.ts";
import { parseSimulateArgs } from "../../src/cli/simulate.ts";

const TAIL =
  '"error":{"message":"Transaction cancelled: maximum execution time exceeded","detail":"Transaction cancelled: maximum execution time exceeded Check logs for error trace or enable glide.rest.debug property to verify REST request processing"},"status":"failure"}';
const PAGE = "/api/now/table/incident?sysparm_fields=sys_id,number,short_description&sysparm_limit=300";
/** 300 rows at 3 ms each: the page takes at least 0.9 s to stream, three times the quota (300 ms). */
const SLOW_ROWS = { fault: { kind: "latency" as const, perRowMs: 3 } };

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

Deno.test("quota: a list still streaming is cancelled: 200, cut inside a record, the error appended", async () => {
  await withSim(
    { seed: { incident: 300 }, transactionQuota: { ms: 300 }, faults: [SLOW_ROWS] },
    async (sim) => {
      const { res, text } = await call(sim, { path: PAGE });
      assertEquals(res.status, 200);
      assert(text.startsWith('{"result":[{"sys_id":"'), text.slice(0, 50));
      assert(text.endsWith(TAIL), text.slice(-250));
      assertEquals(parses(text), false);
      const before = text.slice(0, -TAIL.length);
      assert(!before.endsWith("}") && !before.endsWith(","), `cut between records: …${before.slice(-40)}`);
      const complete = before.match(/"short_description":"[^"]*"}/g)?.length ?? 0;
      assert(complete < 300, "nothing was cut");
      assertEquals(sim.counters.quotaCancelled, 1);
    },
  );
});

Deno.test("quota: the complete_rows shape is valid JSON with the rows sent before the cut", async () => {
  await withSim(
    { seed: { incident: 300 }, transactionQuota: { ms: 300, shape: "complete_rows" }, faults: [SLOW_ROWS] },
    async (sim) => {
      const { res, text } = await call(sim, { path: PAGE });
      assertEquals(res.status, 200);
      assert(text.endsWith("]," + TAIL), text.slice(-250));
      const body = JSON.parse(text);
      assertEquals([body.status, body.error.message], [
        "failure",
        "Transaction cancelled: maximum execution time exceeded",
      ]);
      assert(body.result.length > 0 && body.result.length < 300, `${body.result.length} rows`);
      for (const row of body.result) {
        assertEquals(Object.keys(row), ["sys_id", "number", "short_description"]);
      }
    },
  );
});

Deno.test("quota: a request that never left the semaphore queue answers 500 with the error body", async () => {
  await withSim(
    {
      seed: { incident: 3 },
      semaphore: { threads: 2, otherClientThreads: 2 },
      transactionQuota: { ms: 100 },
    },
    async (sim) => {
      const { res, text } = await call(sim);
      assertEquals(res.status, 500);
      assertEquals(JSON.parse(text), JSON.parse("{" + TAIL));
      assertEquals(sim.counters.quotaCancelled, 1);
      assertEquals(sim.counters.rowsReturned, 0);
    },
  );
});

Deno.test("quota: a write whose work outlasts the quota answers 200 with the error only and is not applied", async () => {
  await withSim({ seed: { incident: 3 }, transactionQuota: { ms: 50 }, latencyMs: 400 }, async (sim) => {
    const [id] = sim.table("incident").sysIds();
    const before = sim.table("incident").get(id)!.short_description;
    const { res, text } = await call(sim, {
      method: "PATCH",
      path: `/api/now/table/incident/${id}`,
      body: { short_description: "late write" },
    });
    assertEquals(res.status, 200);
    assertEquals(text, "{" + TAIL);
    assertEquals(sim.table("incident").get(id)!.short_description, before);
  });
});

Deno.test("quota: a request within its quota is whole", async () => {
  await withSim({ seed: { incident: 30 }, transactionQuota: { ms: 5000 } }, async (sim) => {
    const { res, text } = await call(sim, { path: PAGE });
    assertEquals([res.status, JSON.parse(text).result.length], [200, 30]);
    assertEquals(sim.counters.quotaCancelled, 0);
  });
});

Deno.test("the quota_cancel fault takes the same shapes", async () => {
  await withSim({ seed: { incident: 20 } }, async (sim) => {
    sim.faults.add({ fault: { kind: "quota_cancel", afterRows: 5, shape: "complete_rows" }, times: 1 });
    const body = JSON.parse((await call(sim, { path: PAGE })).text);
    assertEquals([body.result.length, body.status], [5, "failure"]);
    sim.faults.add({ fault: { kind: "quota_cancel", afterRows: 5, shape: "cut_record" }, times: 1 });
    const cut = (await call(sim, { path: PAGE })).text;
    assert(cut.endsWith(TAIL) && !parses(cut));
    assertEquals(cut.match(/"sys_id"/g)!.length, 6);
  });
});

Deno.test("simulate --quota-ms, --quota-shape", async () => {
  assertEquals(await parseSimulateArgs(["--quota-ms", "60000", "--quota-shape", "complete_rows"]), {
    port: 8089,
    transactionQuota: { ms: 60000, shape: "complete_rows" },
  });
});
