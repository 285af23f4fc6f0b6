/**
 * A misspelt `svc.sink.correlation.field`, allowlist, denylist or rename target fails the start naming it;
 * where the dictionary cannot be read, a lookup whose rows do not hold the value (the instance dropped the term)
 * is a record error and no row changes.
 */
import { assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import type { SinkRecordError } from "../../src/sink/record_error.ts";
import { seedIncident, startHarness } from "./support/harness.ts";
import { mapValue, sinkRecord } from "./support/records.ts";

const LOOKUP = {
  "svc.sink.create.ambiguous.behavior": "correlation_lookup",
  "svc.sink.operation.mode": "fixed",
};

Deno.test("a correlation field the table lacks fails the start naming it; an inherited one is fine", async () => {
  const error = await assertRejects(() =>
    startHarness({
      config: {
        ...LOOKUP,
        "svc.sink.operation.fixed": "create",
        "svc.sink.correlation.field": "correlaton_id",
      },
    })
  );
  assertStringIncludes(
    error.message,
    "svc.sink.correlation.field names field correlaton_id, which table incident",
  );
  await using started = await startHarness({
    config: {
      ...LOOKUP,
      "svc.sink.operation.fixed": "create",
      "svc.sink.correlation.field": "correlation_id",
    },
  });
  assertEquals(started.context.recordErrors, []);
});

Deno.test("dictionary unreadable: a lookup answering rows without the value is a record error, nothing written", async () => {
  await using h = await startHarness({
    config: {
      ...LOOKUP,
      "svc.sink.operation.fixed": "create",
      "svc.sink.correlation.field": "correlaton_id",
      "svc.sink.unknown.field.behavior": "passthrough",
      "errors.tolerance": "all",
    },
    sim: {
      faults: [
        { table: "sys_db_object", fault: { kind: "status", status: 403, message: "Operation Failed" } },
        { table: "sys_dictionary", fault: { kind: "status", status: 403, message: "Operation Failed" } },
      ],
    },
  });
  const existing = seedIncident(h.sim, { short_description: "untouched" });
  const before = h.sim.table("incident").get(existing);
  await h.put(
    sinkRecord({ offset: 0, value: mapValue({ correlaton_id: "X-1", short_description: "mine" }) }),
  );
  assertEquals(h.context.recordErrors.length, 1);
  const error = h.context.recordErrors[0].error as SinkRecordError;
  assertEquals(error.classification, "invalid_field");
  assertStringIncludes(error.message, 'correlation field "correlaton_id"');
  assertEquals(h.sim.table("incident").get(existing), before);
  assertEquals(h.sim.table("incident").count, 1);
});

Deno.test("a misspelt allowlist, denylist or rename target fails the start naming key and field", async () => {
  for (
    const [key, value, field] of [
      ["svc.sink.field.allowlist", "short_description,urgncy", "urgncy"],
      ["svc.sink.field.denylist", "work_ntoes", "work_ntoes"],
      ["svc.sink.field.rename", "desc:descripton", "descripton"],
    ]
  ) {
    const error = await assertRejects(() => startHarness({ config: { [key]: value } }));
    assertStringIncludes(error.message, `${key} names field ${field}, which table incident does not have`);
  }
});
