/**
 * Ambiguous creates under each policy, using the simulator's reset fault: the row is inserted, then the
 * connection drops in the middle of the response, so the client cannot know whether the create happened.
 */
import { assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { RetriableException } from "../../src/connect/task_api.ts";
import type { SinkRecordError } from "../../src/sink/record_error.ts";
import { seedIncident, startHarness } from "./support/harness.ts";
import { mapValue, sinkRecord } from "./support/records.ts";

const POST_ROUTE = "POST /api/now/table/incident";
const RESET = { kind: "reset", afterBytes: 8 } as const;
const CORRELATION = {
  "svc.sink.create.ambiguous.behavior": "correlation_lookup",
  "svc.sink.correlation.field": "correlation_id",
};

function rowsWith(
  h: {
    sim: { table(name: string): { sysIds(): string[]; get(id: string): Record<string, string> | undefined } };
  },
  field: string,
  value: string,
): string[] {
  const table = h.sim.table("incident");
  return table.sysIds().filter((id) => table.get(id)?.[field] === value);
}

Deno.test("fail_ambiguous: one send, then a record error; the row the instance did create stays", async () => {
  await using h = await startHarness({ config: { "behavior.on.api.errors": "log" } });
  h.sim.faults.add({ route: POST_ROUTE, fault: RESET, times: 1 });
  await h.put(sinkRecord({ offset: 0, value: mapValue({ short_description: "amb-1" }) }));
  assertEquals(h.proxy.writes().map((r) => r.method), ["POST"]);
  const error = h.context.recordErrors[0].error as SinkRecordError;
  assertEquals(error.classification, "ambiguous_create");
  assertStringIncludes(error.message, "outcome unknown");
  assertEquals(rowsWith(h, "short_description", "amb-1").length, 1);
});

Deno.test("retry: the create is sent again (a duplicate row is the accepted price)", async () => {
  await using h = await startHarness({ config: { "svc.sink.create.ambiguous.behavior": "retry" } });
  h.sim.faults.add({ route: POST_ROUTE, fault: RESET, times: 1 });
  await h.put(sinkRecord({ offset: 0, value: mapValue({ short_description: "amb-2" }) }));
  assertEquals(h.proxy.writes().map((r) => [r.method, r.body]), [
    ["POST", { short_description: "amb-2" }],
    ["POST", { short_description: "amb-2" }],
  ]);
  assertEquals(h.context.recordErrors, []);
  assertEquals(rowsWith(h, "short_description", "amb-2").length, 2);
});

Deno.test("retry: a create carrying a sys id is checked by it instead of being sent twice", async () => {
  await using h = await startHarness({
    config: { "svc.sink.create.ambiguous.behavior": "retry", "svc.sink.not.found.behavior": "create" },
  });
  const sysId = "abcdefabcdefabcdefabcdefabcdef01";
  h.sim.faults.add({ route: POST_ROUTE, fault: RESET, times: 1 });
  await h.put(sinkRecord({ offset: 0, key: sysId, value: mapValue({ short_description: "amb-3" }) }));
  assertEquals(h.proxy.writes().map((r) => r.method), ["PATCH", "POST"]);
  assertEquals(
    h.proxy.requests.filter((r) => r.path === `/api/now/table/incident/${sysId}` && r.method === "GET")
      .length,
    1,
  );
  assertEquals(h.context.recordErrors, []);
  assertEquals(h.sim.table("incident").get(sysId)?.short_description, "amb-3");
});

Deno.test("retry: when every send stays unanswered the task fails as retriable and nothing is committed", async () => {
  await using h = await startHarness({ config: { "svc.sink.create.ambiguous.behavior": "retry" } });
  h.sim.faults.add({ route: POST_ROUTE, fault: RESET });
  await assertRejects(
    () => h.put(sinkRecord({ offset: 4, value: mapValue({ short_description: "amb-4" }) })),
    RetriableException,
  );
  // svc.retry.max.attempts=3 sends.
  assertEquals(h.proxy.writes().length, 3);
  assertEquals(await h.task.preCommit([{ topic: "incidents", partition: 0, offset: 5 }]), [
    { topic: "incidents", partition: 0, offset: 4 },
  ]);
});

Deno.test("correlation_lookup: looked up before creating and after the ambiguous send; one row in the end", async () => {
  await using h = await startHarness({ config: CORRELATION });
  h.sim.faults.add({ route: POST_ROUTE, fault: RESET, times: 1 });
  await h.put(
    sinkRecord({ offset: 0, value: mapValue({ short_description: "amb-5", correlation_id: "EXT-5" }) }),
  );
  const calls = h.proxy.requests
    .filter((r) => r.path === "/api/now/table/incident")
    .map((r) => [r.method, r.query.get("sysparm_query")]);
  assertEquals(calls, [["GET", "correlation_id=EXT-5"], ["POST", null], ["GET", "correlation_id=EXT-5"]]);
  assertEquals(h.context.recordErrors, []);
  assertEquals(rowsWith(h, "correlation_id", "EXT-5").length, 1);
});

Deno.test("correlation_lookup: an existing match is updated instead of created; two matches are a record error", async () => {
  await using h = await startHarness({ config: { ...CORRELATION, "behavior.on.api.errors": "log" } });
  const existing = seedIncident(h.sim, { correlation_id: "EXT-6" });
  seedIncident(h.sim, { correlation_id: "EXT-7" });
  seedIncident(h.sim, { correlation_id: "EXT-7" });
  await h.put(
    sinkRecord({ offset: 0, value: mapValue({ short_description: "matched", correlation_id: "EXT-6" }) }),
    sinkRecord({ offset: 1, value: mapValue({ short_description: "twice", correlation_id: "EXT-7" }) }),
    sinkRecord({ offset: 2, value: mapValue({ short_description: "no correlation value" }) }),
  );
  assertEquals(h.proxy.writes().map((r) => [r.method, r.path]), [[
    "PATCH",
    `/api/now/table/incident/${existing}`,
  ]]);
  assertEquals(h.sim.table("incident").get(existing)?.short_description, "matched");
  assertEquals(
    h.context.recordErrors.map((e) => [e.record.kafkaOffset, (e.error as SinkRecordError).classification])
      .sort(),
    [[1, "correlation_ambiguous"], [2, "mapping"]],
  );
});

Deno.test("correlation_lookup: a row whose correlation value differs only in case matched (the instance ignores case) and is updated", async () => {
  await using h = await startHarness({ config: { ...CORRELATION, "behavior.on.api.errors": "log" } });
  const existing = seedIncident(h.sim, { correlation_id: "ext-8" });
  await h.put(
    sinkRecord({
      offset: 0,
      value: mapValue({ short_description: "matched in any case", correlation_id: "EXT-8" }),
    }),
  );
  assertEquals(h.context.recordErrors.map((e) => (e.error as SinkRecordError).message), []);
  assertEquals(h.proxy.writes().map((r) => [r.method, r.path]), [[
    "PATCH",
    `/api/now/table/incident/${existing}`,
  ]]);
  assertEquals(h.sim.table("incident").get(existing)?.short_description, "matched in any case");
});
