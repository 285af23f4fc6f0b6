/**
 * Error paths: retries running out (retriable, nothing lost, nothing written twice on redelivery), each
 * permanent status as a record error under each `behavior.on.api.errors`, `errors.tolerance=none`, and a
 * status that concerns the whole task.
 */
import { assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { RetriableException } from "../../src/connect/task_api.ts";
import type { SinkRecordError } from "../../src/sink/record_error.ts";
import { SinkRecordFailure } from "../../src/sink/task.ts";
import { seedIncident, startHarness, USER } from "./support/harness.ts";
import { mapValue, sinkRecord } from "./support/records.ts";

const ROW_ROUTE = "PATCH /api/now/table/incident/{sys_id}";
const consumed = (offset: number) => [{ topic: "incidents", partition: 0, offset }];

Deno.test("retries run out: put throws RetriableException, preCommit stops at the record, redelivery finishes", async () => {
  await using h = await startHarness();
  const [a, b, c] = [seedIncident(h.sim), seedIncident(h.sim), seedIncident(h.sim)];
  // Warm the dictionary cache so the fault below only meets the writes.
  await h.put(sinkRecord({ offset: 0, key: a, value: mapValue({ urgency: 1 }) }));
  h.proxy.clear();
  const fault = h.sim.faults.add({ route: ROW_ROUTE, fault: { kind: "status", status: 503 } });
  const batch = [
    sinkRecord({ offset: 1, key: b, value: mapValue({ urgency: 2 }) }),
    sinkRecord({ offset: 2, key: c, value: mapValue({ urgency: 3 }) }),
  ];
  const error = await assertRejects(() => h.task.put(batch), RetriableException);
  assertStringIncludes(error.message, "503");
  // svc.retry.max.attempts=3: both writes (started in parallel) were tried three times, then given up.
  assertEquals(h.proxy.writes().length, 6);
  assertEquals(await h.task.preCommit(consumed(3)), consumed(1));
  assertEquals(h.context.recordErrors, [], "a retriable failure is never a record error");

  h.sim.faults.remove(fault);
  h.proxy.clear();
  await h.task.put(batch);
  assertEquals(
    h.proxy.writes().map((r) => r.path).sort(),
    [b, c].map((id) => `/api/now/table/incident/${id}`).sort(),
  );
  assertEquals(await h.task.preCommit(consumed(3)), consumed(3));
});

Deno.test("a redelivery does not write again what the failed put already wrote", async () => {
  await using h = await startHarness({ config: { "svc.sink.max.in.flight": "1" } });
  const [a, b] = [seedIncident(h.sim), seedIncident(h.sim)];
  await h.put(sinkRecord({ offset: 0, key: a, value: mapValue({ urgency: 1 }) }));
  h.proxy.clear();
  // The first PATCH succeeds, every later one fails.
  h.sim.faults.add({ route: ROW_ROUTE, fault: { kind: "status", status: 500 }, skip: 1, times: 3 });
  const batch = [
    sinkRecord({ offset: 1, key: a, value: mapValue({ urgency: 2 }) }),
    sinkRecord({ offset: 2, key: b, value: mapValue({ urgency: 3 }) }),
  ];
  await assertRejects(() => h.task.put(batch), RetriableException);
  assertEquals(await h.task.preCommit(consumed(3)), consumed(2));
  h.proxy.clear();
  await h.task.put(batch);
  assertEquals(h.proxy.writes().map((r) => r.path), [`/api/now/table/incident/${b}`]);
  assertEquals(await h.task.preCommit(consumed(3)), consumed(3));
});

Deno.test("records after a retriable failure on the same row are not written out of order", async () => {
  await using h = await startHarness({ config: { "svc.sink.max.in.flight": "4" } });
  const a = seedIncident(h.sim);
  await h.put(sinkRecord({ offset: 0, key: a, value: mapValue({ urgency: 1 }) }));
  h.proxy.clear();
  h.sim.faults.add({ route: ROW_ROUTE, fault: { kind: "status", status: 502 }, times: 3 });
  const batch = [1, 2, 3].map((o) =>
    sinkRecord({ offset: o, key: a, value: mapValue({ short_description: `v${o}` }) })
  );
  await assertRejects(() => h.task.put(batch), RetriableException);
  // Only the first record was tried (three attempts); its successors waited and were left for the redelivery.
  assertEquals(h.proxy.writes().map((r) => r.body), [1, 1, 1].map(() => ({ short_description: "v1" })));
  await h.task.put(batch);
  assertEquals(h.sim.table("incident").get(a)?.short_description, "v3");
});

for (
  const [status, classification] of [[400, "bad_request"], [403, "acl_denied"], [409, "conflict"], [
    422,
    "unprocessable",
  ]] as const
) {
  Deno.test(`HTTP ${status} is a record error (${classification}), logged and skipped under behavior=log`, async () => {
    // One write at a time, so the one-off fault meets the first record.
    await using h = await startHarness({
      config: { "behavior.on.api.errors": "log", "svc.sink.max.in.flight": "1" },
    });
    const [a, b] = [seedIncident(h.sim), seedIncident(h.sim)];
    h.sim.faults.add({
      route: ROW_ROUTE,
      fault: { kind: "status", status, message: "Operation Failed" },
      times: 1,
    });
    await h.put(
      sinkRecord({ offset: 0, key: a, value: mapValue({ urgency: 1 }) }),
      sinkRecord({ offset: 1, key: a, value: mapValue({ urgency: 2 }) }),
      sinkRecord({ offset: 2, key: b, value: mapValue({ urgency: 3 }) }),
    );
    assertEquals(h.context.recordErrors.length, 1);
    const { record, error } = h.context.recordErrors[0];
    assertEquals(record.kafkaOffset, 0);
    assertEquals([(error as SinkRecordError).classification, (error as SinkRecordError).status], [
      classification,
      status,
    ]);
    assertStringIncludes((error as SinkRecordError).responseExcerpt ?? "", "Operation Failed");
    const warning = h.context.lines.find((l) => l.level === "warn");
    assertEquals([warning?.fields.offset, warning?.fields.classification], [0, classification]);
    assertEquals(
      h.sim.table("incident").get(a)?.urgency,
      "2",
      "the next record of the row was still written",
    );
    assertEquals(await h.task.preCommit(consumed(3)), consumed(3));
  });
}

Deno.test("behavior.on.api.errors=fail stops the task naming topic, partition, offset and cause", async () => {
  await using h = await startHarness();
  const a = seedIncident(h.sim);
  h.sim.faults.add({
    route: ROW_ROUTE,
    fault: { kind: "status", status: 400, message: "Invalid field" },
    times: 1,
  });
  const error = await assertRejects(
    () => h.put(sinkRecord({ offset: 7, key: a, value: mapValue({ urgency: 1 }) })),
    SinkRecordFailure,
  );
  assertStringIncludes(error.message, "topic incidents partition 0 offset 7 failed (bad_request)");
  assertStringIncludes(error.message, "HTTP 400");
  assertEquals(h.context.recordErrors.length, 1, "reported to the dead letter queue before failing");
  assertEquals(await h.task.preCommit(consumed(8)), consumed(7));
});

Deno.test("behavior.on.api.errors unset follows errors.tolerance: all logs and skips, the task goes on", async () => {
  await using h = await startHarness({ config: { "errors.tolerance": "all" } });
  const [a, b] = [seedIncident(h.sim), seedIncident(h.sim)];
  h.sim.writeRules.add({ kind: "abort", table: "incident", name: "No urgency 1", when: { urgency: "1" } });
  await h.put(
    sinkRecord({ offset: 0, key: a, value: mapValue({ urgency: 1 }) }),
    sinkRecord({ offset: 1, key: b, value: mapValue({ urgency: 2 }) }),
  );
  assertEquals(h.context.recordErrors.length, 1);
  assertEquals((h.context.recordErrors[0].error as SinkRecordError).classification, "business_rule_abort");
  assertStringIncludes(h.context.recordErrors[0].error.message, 'business rule "No urgency 1" aborted it');
  assertEquals(h.context.lines.filter((l) => l.level === "warn").length, 1);
  assertEquals(h.sim.table("incident").get(b)?.urgency, "2");
  assertEquals(await h.task.preCommit(consumed(2)), consumed(2));
});

Deno.test("behavior.on.api.errors=ignore skips without a log line", async () => {
  await using h = await startHarness({ config: { "behavior.on.api.errors": "ignore" } });
  await h.put(sinkRecord({ offset: 0, value: 42 }));
  assertEquals(h.context.recordErrors.length, 1);
  assertEquals(h.context.lines.filter((l) => l.level === "warn"), []);
  assertEquals(await h.task.preCommit(consumed(1)), consumed(1));
});

Deno.test("errors.tolerance=none: reporting the record error fails the task whatever behavior.on.api.errors says", async () => {
  await using h = await startHarness({ tolerance: "none", config: { "behavior.on.api.errors": "ignore" } });
  await assertRejects(() => h.put(sinkRecord({ offset: 3, value: "not json" })), Error, "Tolerance exceeded");
  assertEquals(await h.task.preCommit(consumed(4)), consumed(3));
});

Deno.test("a 401 concerns the whole task: it fails without a record error", async () => {
  await using h = await startHarness({ config: { "behavior.on.api.errors": "log" } });
  const a = seedIncident(h.sim);
  h.sim.users.remove(USER);
  const error = await assertRejects(() =>
    h.put(sinkRecord({ offset: 0, key: a, value: mapValue({ urgency: 1 }) }))
  );
  assertStringIncludes(error.message, "401");
  assertEquals(h.context.recordErrors, []);
  assertEquals(await h.task.preCommit(consumed(1)), consumed(0));
});
