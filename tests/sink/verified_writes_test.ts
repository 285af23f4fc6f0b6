/**
 * Verified writes: a field the instance answered 200 for but did not store is a `not_written` record error
 * naming table, sys id and fields; rewritten and ignored fields are not errors; the instance's normalisation of
 * references, numbers, booleans and dates is not a difference.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import type { SinkRecordError } from "../../src/sink/record_error.ts";
import { sameStoredValue } from "../../src/sink/stored_value.ts";
import { seedIncident, startHarness } from "./support/harness.ts";
import { mapValue, sinkRecord } from "./support/records.ts";

Deno.test("sameStoredValue: the instance's spelling of what was sent is the same value", () => {
  const same: Array<[string, string, string?]> = [
    ["1.0", "1"],
    ["1", "true", "boolean"],
    ["false", "false"],
    ["2024-12-31T10:00:00Z", "2024-12-31 10:00:00"],
    ["2024-12-31T12:00:00+02:00", "2024-12-31 10:00:00"],
    ["2024-12-31", "2024-12-31 00:00:00"],
    ["Beth Anglin", "46d44a5ea9fe198101aaa6c50d34f8bd", "reference"],
    ["text ", "text"],
  ];
  for (const [sent, stored, type] of same) assertEquals(sameStoredValue(sent, stored, type), true, sent);
  const different: Array<[string, string, string?]> = [
    ["new", "old"],
    ["2", "1"],
    ["true", "false"],
    ["2024-12-31 10:00:01", "2024-12-31 10:00:00"],
    ["x", "46d44a5ea9fe198101aaa6c50d34f8bd", "string"],
  ];
  for (const [sent, stored, type] of different) {
    assertEquals(sameStoredValue(sent, stored, type), false, sent);
  }
});

Deno.test("a field a write ACL kept is not_written; rewritten and ignored fields are not errors", async () => {
  await using h = await startHarness({
    config: {
      "errors.tolerance": "all",
      "svc.sink.verify.rewritten.fields": "subcategory",
      "svc.sink.verify.ignore.fields": "close_notes",
    },
  });
  h.sim.writeRules.add({ kind: "write_acl", table: "incident", fields: ["description", "close_notes"] });
  h.sim.writeRules.add({ kind: "rewrite", table: "incident", field: "subcategory", value: "triaged" });
  const [a, b] = [seedIncident(h.sim), seedIncident(h.sim)];
  await h.put(
    sinkRecord({ offset: 0, key: a, value: mapValue({ short_description: "s1", description: "locked" }) }),
    sinkRecord({
      offset: 1,
      key: b,
      value: mapValue({ short_description: "s2", subcategory: "mine", close_notes: "n", urgency: 1 }),
    }),
  );
  assertEquals(h.context.recordErrors.length, 1);
  const error = h.context.recordErrors[0].error as SinkRecordError;
  assertEquals([error.classification, h.context.recordErrors[0].record.kafkaOffset], ["not_written", 0]);
  assertStringIncludes(error.message, `not_written: description (table "incident", sys_id ${a})`);
  assertEquals(h.sim.table("incident").get(b)?.short_description, "s2");
  assertEquals(
    h.context.counters.get('tablesync_sink_fields_rewritten_total{"table":"incident","field":"subcategory"}'),
    1,
  );
  assertEquals(h.context.counters.get('tablesync_sink_writes_total{"class":"not_written"}'), 1);
  assertEquals(h.context.counters.get('tablesync_sink_writes_total{"class":"ok"}'), 1);
});
