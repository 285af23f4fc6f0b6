/** Records of one row are written in offset order; different rows in parallel within svc.sink.max.in.flight. */
import { assertEquals } from "../support/assert.ts";
import { seedIncident, startHarness } from "./support/harness.ts";
import { mapValue, sinkRecord, versionedRecords } from "./support/records.ts";

Deno.test("per-row order with parallel rows, never more than svc.sink.max.in.flight writes at once", async () => {
  await using h = await startHarness({ config: { "svc.sink.max.in.flight": "3" } });
  const rows = Array.from({ length: 5 }, () => seedIncident(h.sim));
  // Every write takes a while, so writes that may overlap do.
  h.sim.faults.add({ route: "PATCH /api/now/table/incident/{sys_id}", fault: { kind: "latency", ms: 60 } });
  // All versions of one row back to back: without per-row ordering they would be written concurrently.
  const records = versionedRecords(rows, 4);
  await h.task.put(records);

  for (const sysId of rows) {
    const sent = h.proxy.writes().filter((r) => r.path.endsWith(sysId)).map((r) => r.body?.short_description);
    assertEquals(sent, ["v0", "v1", "v2", "v3"], `row ${sysId} written in offset order`);
    assertEquals(h.sim.table("incident").get(sysId)?.short_description, "v3");
  }
  assertEquals(h.proxy.peakConcurrentWritesPerRow, 1, "one write per row at a time");
  assertEquals(h.proxy.peakConcurrentWrites, 3, "rows in parallel, up to svc.sink.max.in.flight");
  assertEquals(await h.task.preCommit([{ topic: "incidents", partition: 0, offset: 20 }]), [
    { topic: "incidents", partition: 0, offset: 20 },
  ]);
});

Deno.test("max in flight 1 writes strictly one at a time", async () => {
  await using h = await startHarness({ config: { "svc.sink.max.in.flight": "1" } });
  const rows = Array.from({ length: 3 }, () => seedIncident(h.sim));
  h.sim.faults.add({ route: "PATCH /api/now/table/incident/{sys_id}", fault: { kind: "latency", ms: 20 } });
  await h.task.put(
    rows.map((sysId, i) => sinkRecord({ offset: i, key: sysId, value: mapValue({ urgency: 1 }) })),
  );
  assertEquals(h.proxy.writes().length, 3);
  assertEquals(h.proxy.peakConcurrentWrites, 1);
});
