/**
 * The read coalescer against the simulator's Batch API: reads gathered into one HTTP request, each answered by its
 * own item exactly as a single request would answer it; items over the limit in more batches; an item the
 * instance did not do (unserviced, 429/5xx, 202 not done) sent again alone, never an empty page; a refused batch
 * endpoint either turns batching off (auto) or fails the reads (required).
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { type Simulator, type SimulatorOptions, startSimulator } from "../../src/sim/mod.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { ReadCoalescer, type ReadCoalescerOptions } from "../../src/instance/read_coalescer.ts";
import { InstanceConfigError, InstanceHttpError, InstanceRetriableError } from "../../src/instance/errors.ts";
import { testSettings } from "./_helpers.ts";

const USER = "reader";
const PASSWORD = "Read-Coalesce-9";
const TABLES = ["incident", "problem", "sys_user", "sys_user_group", "cmdb_ci"];

async function setup(
  sim: SimulatorOptions = {},
  coalescer: Partial<ReadCoalescerOptions> = {},
): Promise<{ sim: Simulator; client: TableClient; coalescer: ReadCoalescer } & AsyncDisposable> {
  const s = await startSimulator({
    users: [{ userName: USER, password: PASSWORD }],
    seed: { incident: 2, problem: 3 },
    ...sim,
  });
  const client = await TableClient.create(
    testSettings(s.url, { auth: { type: "basic", username: USER, password: PASSWORD } }),
  );
  const c = new ReadCoalescer(client.http, {
    gatherMs: 20,
    maxItems: 50,
    required: false,
    neededBy: "svc.source.poll.batch=auto",
    ...coalescer,
  });
  client.coalesceReads(c);
  return {
    sim: s,
    client,
    coalescer: c,
    [Symbol.asyncDispose]: async () => {
      client.close();
      await s.stop();
    },
  };
}

/** Every table's page read at once, each marked `coalesce`. */
function readAll(client: TableClient, tables = TABLES) {
  return Promise.all(tables.map((t) => client.list(t, { limit: 1000, count: true, coalesce: true })));
}

/** Rows of each table (what a read of every row returns). */
function rowCounts(sim: Simulator, tables = TABLES): number[] {
  return tables.map((t) => sim.table(t).sysIds().length);
}

/** HTTP requests the simulator received (batch items are served inside their batch's request). */
function httpRequests(sim: Simulator) {
  return sim.journal.entries().filter((e) => !e.batchItem);
}

Deno.test("reads gathered within the window go as one Batch API request; each gets its own rows, count and clock", async () => {
  await using t = await setup();
  const pages = await readAll(t.client);
  const requests = httpRequests(t.sim);
  assertEquals(requests.map((e) => e.route), ["POST /api/now/batch"]);
  assertEquals(t.sim.journal.entries().filter((e) => e.batchItem).map((e) => e.table), TABLES);
  assertEquals(t.coalescer.stats, { batches: 1, items: TABLES.length, alone: 0 });
  // The same reads as single requests answer the same rows and counts.
  for (const [i, table] of TABLES.entries()) {
    const single = await t.client.list(table, { limit: 1000, count: true });
    assertEquals(pages[i].rows, single.rows, table);
    assertEquals(pages[i].total, rowCounts(t.sim)[i], table);
    assertEquals(single.total, pages[i].total, table);
    assert(pages[i].instanceTime instanceof Date, `${table}: no clock from the batch response`);
  }
});

Deno.test("a read not marked coalesce, or gathered alone, is a single request", async () => {
  await using t = await setup();
  await t.client.list("incident", { limit: 10 });
  await t.client.list("problem", { limit: 10, coalesce: true });
  assertEquals(httpRequests(t.sim).map((e) => e.route), [
    "GET /api/now/table/incident",
    "GET /api/now/table/problem",
  ]);
  assertEquals(t.coalescer.stats, { batches: 0, items: 0, alone: 1 });
});

Deno.test("reads beyond maxItems fill further batches", async () => {
  await using t = await setup({}, { maxItems: 2 });
  const pages = await readAll(t.client);
  assertEquals(pages.map((p) => p.rows.length), rowCounts(t.sim));
  assertEquals(httpRequests(t.sim).map((e) => e.route), [
    "POST /api/now/batch",
    "POST /api/now/batch",
    "GET /api/now/table/cmdb_ci",
  ]);
  assertEquals(t.coalescer.stats, { batches: 2, items: 4, alone: 1 });
});

Deno.test("items answered 503 or 202-not-done are sent again alone, never read as empty pages", async () => {
  await using t = await setup();
  t.sim.faults.add({ table: "problem", fault: { kind: "status", status: 503 }, times: 1 });
  t.sim.faults.add({ table: "cmdb_ci", fault: { kind: "accepted" }, times: 1 });
  const pages = await readAll(t.client);
  assertEquals(pages.map((p) => p.rows.length), rowCounts(t.sim));
  const alone = httpRequests(t.sim).filter((e) => e.route !== "POST /api/now/batch").map((e) => e.table);
  assertEquals(alone.sort(), ["cmdb_ci", "problem"]);
  assertEquals(t.sim.journal.entries().filter((e) => e.batchItem).length, TABLES.length);
  assertEquals(t.coalescer.stats, { batches: 1, items: TABLES.length, alone: 2 });
});

Deno.test("items left unserviced by the batch quota are sent again alone", async () => {
  // The first item takes longer than the whole batch may: the instance leaves the rest unserviced.
  await using t = await setup({ batchQuotaMs: 50 });
  t.sim.faults.add({ table: "incident", fault: { kind: "latency", ms: 120 }, times: 1 });
  const pages = await readAll(t.client);
  assertEquals(pages.map((p) => p.rows.length), rowCounts(t.sim));
  const alone = httpRequests(t.sim).filter((e) => e.route !== "POST /api/now/batch").map((e) => e.table);
  assertEquals(alone, TABLES.slice(1));
  assertEquals(t.sim.journal.entries().filter((e) => e.batchItem).map((e) => e.table), ["incident"]);
});

Deno.test("an item's 403 or cut-off body is that read's error, as a single request's would be", async () => {
  await using t = await setup();
  t.sim.faults.add({ table: "problem", fault: { kind: "status", status: 403 } });
  t.sim.faults.add({ table: "sys_user", fault: { kind: "quota_cancel", afterRows: 1, shape: "cut_record" } });
  const outcomes = await Promise.allSettled(
    TABLES.map((table) => t.client.list(table, { limit: 1000, coalesce: true })),
  );
  assertEquals(httpRequests(t.sim).map((e) => e.route), ["POST /api/now/batch"]);
  const reasonOf = (i: number) => (outcomes[i] as PromiseRejectedResult).reason;
  assert(reasonOf(1) instanceof InstanceHttpError && reasonOf(1).status === 403, String(reasonOf(1)));
  assert(reasonOf(2) instanceof InstanceRetriableError, String(reasonOf(2)));
  assert(/cut the response off/.test(reasonOf(2).message), reasonOf(2).message);
  for (const i of [0, 3, 4]) assertEquals(outcomes[i].status, "fulfilled", TABLES[i]);
  // The single request fails the same way.
  await assertRejects(() => t.client.list("sys_user", { limit: 1000 }), InstanceRetriableError);
  await assertRejects(() => t.client.list("problem", { limit: 1000 }), InstanceHttpError);
});

Deno.test("a batch answer over svc.http.max.response.bytes sends its reads alone, not as each table's error", async () => {
  await using t = await setup();
  const tables = ["incident", "problem"];
  const single = await Promise.all(tables.map((table) =>
    t.client.http.request({
      method: "GET",
      path: `/api/now/table/${table}`,
    })
  ));
  const largest = Math.max(...single.map((r) => r.body.byteLength));
  // Room for either page alone, not for both base64-encoded in one answer.
  const small = await TableClient.create(testSettings(t.sim.url, {
    auth: { type: "basic", username: USER, password: PASSWORD },
    http: { maxResponseBytes: Math.ceil(largest * 1.2) },
  }));
  try {
    const coalescer = new ReadCoalescer(small.http, {
      gatherMs: 20,
      maxItems: 50,
      required: false,
      neededBy: "svc.source.poll.batch=auto",
    });
    small.coalesceReads(coalescer);
    t.sim.journal.clear();
    const pages = await readAll(small, tables);
    assertEquals(pages.map((p) => p.rows.length), rowCounts(t.sim, tables));
    assertEquals(coalescer.stats, { batches: 1, items: 2, alone: 2 });
  } finally {
    small.close();
  }
});

Deno.test("a refused batch endpoint: auto turns batching off and reads go alone; required fails them", async () => {
  {
    await using t = await setup();
    t.sim.faults.add({ route: "POST /api/now/batch", fault: { kind: "status", status: 400 } });
    const refusals: string[] = [];
    t.client.coalesceReads(
      new ReadCoalescer(t.client.http, {
        gatherMs: 20,
        maxItems: 50,
        required: false,
        neededBy: "svc.source.poll.batch=auto",
        onRefused: (e) => refusals.push(e.message),
      }),
    );
    const pages = await readAll(t.client);
    assertEquals(pages.map((p) => p.rows.length), rowCounts(t.sim));
    await readAll(t.client);
    const routes = httpRequests(t.sim).map((e) => e.route);
    assertEquals(routes.filter((r) => r === "POST /api/now/batch").length, 1, routes.join(","));
    assertEquals(routes.length, 1 + 2 * TABLES.length);
    assertEquals(refusals.length, 1);
    assert(refusals[0].includes("svc.source.poll.batch=auto"), refusals[0]);
  }
  {
    await using t = await setup({}, { required: true, neededBy: "svc.source.poll.batch=true" });
    t.sim.faults.add({ route: "POST /api/now/batch", fault: { kind: "status", status: 400 } });
    const error = await assertRejects(() => readAll(t.client, TABLES.slice(0, 2)), InstanceConfigError);
    assert(error.message.includes("svc.source.poll.batch=true"), error.message);
  }
});

Deno.test("while aloneWhile answers true (auto under a rate-limit rule) reads go alone, then gather again", async () => {
  let budgetKnown = true;
  await using t = await setup({}, { aloneWhile: () => budgetKnown });
  await readAll(t.client);
  assertEquals(
    httpRequests(t.sim).map((e) => e.route).sort(),
    TABLES.map((table) => `GET /api/now/table/${table}`).sort(),
  );
  budgetKnown = false;
  t.sim.journal.clear();
  await readAll(t.client);
  assertEquals(httpRequests(t.sim).map((e) => e.route), ["POST /api/now/batch"]);
});
