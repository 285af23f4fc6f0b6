/**
 * The sink through the instance's Batch API (svc.sink.batch.enabled=true) against the simulator's batch route:
 * per-row order, many records per request, unserviced items sent again, and nothing created twice when a batch
 * the instance applied loses its answer.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { seedIncident, startHarness } from "./support/harness.ts";
import { mapValue, sinkRecord, versionedRecords } from "./support/records.ts";

const BATCH_ROUTE = "POST /api/now/batch";
const batchConfig = (records: number, inFlight = 2) => ({
  "svc.sink.batch.enabled": "true",
  "svc.sink.batch.max.records": String(records),
  "svc.sink.max.in.flight": String(inFlight),
});

Deno.test("batch: many records per request, each row's versions written one after another in offset order", async () => {
  await using h = await startHarness({ config: batchConfig(10) });
  const rows = Array.from({ length: 5 }, () => seedIncident(h.sim));
  h.sim.faults.add({ route: "PATCH /api/now/table/incident/{sys_id}", fault: { kind: "latency", ms: 5 } });
  const records = versionedRecords(rows, 4);
  await h.task.put(records);

  const batches = h.sim.journal.find({ route: BATCH_ROUTE });
  assert(batches.length >= 4 && batches.length < records.length, `${batches.length} batch requests`);
  assertEquals(h.proxy.writes().filter((r) => r.path.startsWith("/api/now/table")).length, 0);
  for (const sysId of rows) {
    assertEquals(h.sim.table("incident").get(sysId)?.short_description, "v3");
    const writes = h.sim.journal.find((e) => e.method === "PATCH" && e.path.endsWith(sysId));
    assertEquals(writes.length, 4, `four versions of ${sysId}`);
    for (let i = 1; i < writes.length; i++) {
      assert(writes[i].startedAt >= writes[i - 1].endedAt!, `versions of ${sysId} never overlap`);
    }
  }
  assertEquals(h.context.recordErrors, []);
  assertEquals(await h.task.preCommit([{ topic: "incidents", partition: 0, offset: 20 }]), [
    { topic: "incidents", partition: 0, offset: 20 },
  ]);
});

Deno.test("batch: items left unserviced by the instance's quota are sent again and written once", async () => {
  // Each item takes 30 ms and the quota is 50 ms: a batch serves about two items and returns the rest.
  await using h = await startHarness({ config: batchConfig(6, 1), sim: { batchQuotaMs: 50 } });
  const rows = Array.from({ length: 6 }, () => seedIncident(h.sim));
  h.sim.faults.add({ route: "PATCH /api/now/table/incident/{sys_id}", fault: { kind: "latency", ms: 30 } });
  await h.task.put(
    rows.map((sysId, i) =>
      sinkRecord({ offset: i, key: sysId, value: mapValue({ short_description: "batched" }) })
    ),
  );
  assert(
    h.sim.journal.find({ route: BATCH_ROUTE }).length >= 3,
    "unserviced items went out in later batches",
  );
  for (const sysId of rows) {
    assertEquals(h.sim.table("incident").get(sysId)?.short_description, "batched");
    assertEquals(h.sim.journal.find((e) => e.method === "PATCH" && e.path.endsWith(sysId)).length, 1);
  }
  assertEquals(h.context.recordErrors, []);
});

Deno.test("batch: a batch the instance applied but whose answer was lost creates no row twice", async () => {
  await using h = await startHarness({ config: { ...batchConfig(10), "behavior.on.api.errors": "log" } });
  const existing = seedIncident(h.sim);
  // The instance applies every item, then the connection drops in the middle of the answer.
  h.sim.faults.add({ route: BATCH_ROUTE, fault: { kind: "reset", afterBytes: 10 }, times: 1 });
  await h.put(
    sinkRecord({ offset: 0, value: mapValue({ short_description: "lost-answer-1" }) }),
    sinkRecord({ offset: 1, value: mapValue({ short_description: "lost-answer-2" }) }),
    sinkRecord({ offset: 2, key: existing, value: mapValue({ short_description: "updated" }) }),
  );
  const table = h.sim.table("incident");
  for (const text of ["lost-answer-1", "lost-answer-2"]) {
    assertEquals(table.sysIds().filter((id) => table.get(id)?.short_description === text).length, 1, text);
  }
  // The creates' outcome is unknown: under the default fail_ambiguous policy each is a record error, never a
  // second POST. The update is idempotent and was sent again.
  assertEquals(
    h.context.recordErrors.map((e) => (e.error as { classification?: string }).classification).sort(),
    ["ambiguous_create", "ambiguous_create"],
  );
  assertEquals(h.sim.journal.find({ method: "POST", table: "incident" }).length, 2);
  assertEquals(table.get(existing)?.short_description, "updated");
});
