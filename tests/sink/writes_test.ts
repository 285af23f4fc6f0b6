/**
 * Writes against the simulator through real HTTP: every input shape, operation, routing and not-found mode,
 * checked by the exact method, path and body each request carried.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTimestamp } from "../../src/connect/logical.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import type { SinkRecordError } from "../../src/sink/record_error.ts";
import { seedIncident, startHarness } from "./support/harness.ts";
import { mapValue, sinkRecord } from "./support/records.ts";
import type { RecordedRequest } from "./support/recording_proxy.ts";

const INCIDENT = "/api/now/table/incident";

type Described = Array<[string, string, Record<string, unknown> | null]>;

function described(requests: RecordedRequest[]): Described {
  return requests.map((r) => [r.method, r.path, r.body]);
}

Deno.test("key_value: a String key PATCHes exactly the mapped fields; no key POSTs; a null value DELETEs", async () => {
  await using h = await startHarness();
  const existing = seedIncident(h.sim, { short_description: "old", urgency: "3" });
  const doomed = seedIncident(h.sim);
  await h.put(
    sinkRecord({
      offset: 0,
      key: existing,
      value: mapValue({ short_description: "new", urgency: 1, sys_id: "x" }),
    }),
    sinkRecord({ offset: 1, value: mapValue({ short_description: "created", category: "network" }) }),
    sinkRecord({ offset: 2, key: doomed, value: null }),
  );
  assertEquals(
    described(h.proxy.writes()).sort(),
    [
      ["DELETE", `${INCIDENT}/${doomed}`, null],
      ["PATCH", `${INCIDENT}/${existing}`, { short_description: "new", urgency: "1" }],
      ["POST", INCIDENT, { short_description: "created", category: "network" }],
    ].sort() as Described,
  );
  const table = h.sim.table("incident");
  assertEquals(table.get(existing)?.short_description, "new");
  assertEquals(table.get(existing)?.urgency, "1");
  assertEquals(table.get(doomed), undefined);
  assertEquals(table.sysIds().filter((id) => table.get(id)?.short_description === "created").length, 1);
  assertEquals(h.context.recordErrors, []);
  assertEquals(await h.task.preCommit([{ topic: "incidents", partition: 0, offset: 3 }]), [
    { topic: "incidents", partition: 0, offset: 3 },
  ]);
});

Deno.test("a Struct value with logical types and a Struct key, and a String holding JSON", async () => {
  await using h = await startHarness();
  const sysId = seedIncident(h.sim);
  const keySchema = SchemaBuilder.struct().field("sys_id", Schema.STRING_SCHEMA).build();
  const valueSchema = SchemaBuilder.struct()
    .field("short_description", Schema.STRING_SCHEMA)
    .field("opened_at", ConnectTimestamp.SCHEMA)
    .field("due_date", SchemaBuilder.int32().name(ConnectDate.LOGICAL_NAME).version(1).optional().build())
    .field("time_worked", ConnectDecimal.schema(3))
    .field("active", Schema.BOOLEAN_SCHEMA)
    .field("close_notes", Schema.OPTIONAL_STRING_SCHEMA)
    .build();
  const value = new Struct(valueSchema)
    .put("short_description", "from avro")
    .put("opened_at", new Date(Date.UTC(2024, 4, 6, 22, 1, 2)))
    .put("due_date", new Date(Date.UTC(2024, 4, 31)))
    .put("time_worked", new BigDecimal(1500n, 3))
    .put("active", true);
  await h.put(
    sinkRecord({ offset: 0, key: new Struct(keySchema).put("sys_id", sysId), keySchema, value }),
    sinkRecord({ offset: 1, key: sysId, value: '{"work_notes":"from a string","reassignment_count":2}' }),
  );
  const writes = h.proxy.writes();
  assertEquals(described(writes), [
    ["PATCH", `${INCIDENT}/${sysId}`, {
      short_description: "from avro",
      opened_at: "2024-05-06 22:01:02",
      due_date: "2024-05-31",
      time_worked: "1.500",
      active: "true",
    }],
    ["PATCH", `${INCIDENT}/${sysId}`, { work_notes: "from a string", reassignment_count: "2" }],
  ]);
  assertEquals(h.sim.table("incident").get(sysId)?.opened_at, "2024-05-06 22:01:02");
});

Deno.test("svc.sink.update.method=PUT sends updates with PUT", async () => {
  await using h = await startHarness({ config: { "svc.sink.update.method": "PUT" } });
  const sysId = seedIncident(h.sim);
  await h.put(sinkRecord({ offset: 0, key: sysId, value: mapValue({ short_description: "put" }) }));
  assertEquals(described(h.proxy.writes()), [["PUT", `${INCIDENT}/${sysId}`, { short_description: "put" }]]);
});

Deno.test("header operations: UPSERT of a missing row creates it with the key's sys id; DELETE deletes", async () => {
  await using h = await startHarness({ config: { "svc.sink.operation.mode": "header" } });
  const fresh = "0123456789abcdef0123456789abcdef";
  const existing = seedIncident(h.sim);
  await h.put(
    sinkRecord({
      offset: 0,
      key: fresh,
      value: mapValue({ short_description: "upserted" }),
      headers: { "svc.operation": "UPSERT" },
    }),
    sinkRecord({
      offset: 1,
      key: existing,
      value: mapValue({ urgency: 2 }),
      headers: { "svc.operation": "upsert" },
    }),
    sinkRecord({
      offset: 2,
      value: mapValue({ short_description: "c" }),
      headers: { "svc.operation": "CREATE" },
    }),
  );
  await h.put(
    sinkRecord({
      offset: 3,
      key: existing,
      value: mapValue({ urgency: 2 }),
      headers: { "svc.operation": "DELETE" },
    }),
  );
  const writes = described(h.proxy.writes());
  assertEquals(
    writes.slice(0, 3).sort(),
    [
      ["PATCH", `${INCIDENT}/${fresh}`, { short_description: "upserted" }],
      ["PATCH", `${INCIDENT}/${existing}`, { urgency: "2" }],
      ["POST", INCIDENT, { short_description: "c" }],
    ].sort() as Described,
  );
  assertEquals(writes.slice(3), [
    ["POST", INCIDENT, { short_description: "upserted", sys_id: fresh }],
    ["DELETE", `${INCIDENT}/${existing}`, null],
  ]);
  assertEquals(h.sim.table("incident").get(fresh)?.short_description, "upserted");
  assertEquals(h.sim.table("incident").get(existing), undefined);
});

Deno.test("fixed operation: delete for every record, whatever the value", async () => {
  await using h = await startHarness({
    config: { "svc.sink.operation.mode": "fixed", "svc.sink.operation.fixed": "delete" },
  });
  const a = seedIncident(h.sim);
  const b = seedIncident(h.sim);
  await h.put(
    sinkRecord({ offset: 0, key: a, value: mapValue({ x: "1" }) }),
    sinkRecord({ offset: 1, key: b }),
  );
  assertEquals(
    described(h.proxy.writes()).sort(),
    [
      ["DELETE", `${INCIDENT}/${a}`, null],
      ["DELETE", `${INCIDENT}/${b}`, null],
    ].sort() as Described,
  );
});

Deno.test("not.found.behavior: fail is a record error, ignore skips, create POSTs with the sys id", async () => {
  const missing = "ffffffffffffffffffffffffffffffff";
  {
    await using h = await startHarness({ config: { "behavior.on.api.errors": "log" } });
    await h.put(
      sinkRecord({ offset: 0, key: missing, value: mapValue({ urgency: 1 }) }),
      sinkRecord({ offset: 1, key: missing }),
    );
    const errors = h.context.recordErrors.map((e) => e.error as SinkRecordError);
    assertEquals(errors.map((e) => [e.classification, e.status]), [["not_found", 404], ["not_found", 404]]);
    assertEquals(h.proxy.writes().map((r) => r.method).sort(), ["DELETE", "PATCH"]);
  }
  {
    await using h = await startHarness({ config: { "svc.sink.not.found.behavior": "ignore" } });
    await h.put(
      sinkRecord({ offset: 0, key: missing, value: mapValue({ urgency: 1 }) }),
      sinkRecord({ offset: 1, key: missing }),
    );
    assertEquals(h.context.recordErrors, []);
    assertEquals(h.proxy.writes().map((r) => r.method).sort(), ["DELETE", "PATCH"]);
    assertEquals(await h.task.preCommit([{ topic: "incidents", partition: 0, offset: 2 }]), [
      { topic: "incidents", partition: 0, offset: 2 },
    ]);
  }
  {
    await using h = await startHarness({ config: { "svc.sink.not.found.behavior": "create" } });
    await h.put(sinkRecord({ offset: 0, key: missing, value: mapValue({ urgency: 1 }) }));
    await h.put(sinkRecord({ offset: 1, key: missing }));
    await h.put(sinkRecord({ offset: 2, key: missing }));
    assertEquals(described(h.proxy.writes()), [
      ["PATCH", `${INCIDENT}/${missing}`, { urgency: "1" }],
      ["POST", INCIDENT, { urgency: "1", sys_id: missing }],
      ["DELETE", `${INCIDENT}/${missing}`, null],
      // A row that is gone needs no delete: create applies to updates only.
      ["DELETE", `${INCIDENT}/${missing}`, null],
    ]);
    assertEquals(h.context.recordErrors, []);
  }
});

Deno.test("topic_map and header routing write to the mapped tables", async () => {
  {
    await using h = await startHarness({
      config: {
        "topics": "incidents,problems",
        "svc.sink.routing.mode": "topic_map",
        "svc.sink.topic.incidents.table": "incident",
        "svc.sink.topic.problems.table": "problem",
      },
    });
    await h.put(
      sinkRecord({ offset: 0, topic: "problems", value: mapValue({ short_description: "p" }) }),
      sinkRecord({ offset: 0, topic: "incidents", value: mapValue({ short_description: "i" }) }),
    );
    assertEquals(h.proxy.writes().map((r) => r.path).sort(), [
      "/api/now/table/incident",
      "/api/now/table/problem",
    ]);
  }
  {
    await using h = await startHarness({
      config: {
        "svc.sink.routing.mode": "header",
        "svc.sink.table.allowlist": "problem",
        "behavior.on.api.errors": "log",
      },
    });
    await h.put(
      sinkRecord({
        offset: 0,
        value: mapValue({ short_description: "p" }),
        headers: { "svc.table": "problem" },
      }),
      sinkRecord({
        offset: 1,
        value: mapValue({ short_description: "u" }),
        headers: { "svc.table": "sys_user" },
      }),
    );
    assertEquals(h.proxy.writes().map((r) => r.path), ["/api/now/table/problem"]);
    assertEquals(h.context.recordErrors.length, 1);
    assertEquals(h.context.recordErrors[0].record.kafkaOffset, 1);
  }
});

Deno.test("unknown fields: the dictionary (with inherited task fields) is read once; fail, drop, passthrough", async () => {
  const dictionaryReads = (h: { proxy: { requests: readonly RecordedRequest[] } }) =>
    h.proxy.requests.filter((r) => r.path.endsWith("/sys_dictionary") || r.path.endsWith("/sys_db_object"))
      .length;
  {
    await using h = await startHarness({ config: { "behavior.on.api.errors": "log" } });
    const sysId = seedIncident(h.sim);
    await h.put(
      sinkRecord({
        offset: 0,
        key: sysId,
        value: mapValue({ short_description: "task field", caller_id: "" }),
      }),
    );
    const reads = dictionaryReads(h);
    assert(reads > 0, "the dictionary is read");
    await h.put(
      sinkRecord({ offset: 1, key: sysId, value: mapValue({ short_description: "again", bogus: "x" }) }),
      sinkRecord({ offset: 2, key: sysId, value: mapValue({ urgency: 1 }) }),
    );
    assertEquals(dictionaryReads(h), reads, "cached: no second lookup");
    const error = h.context.recordErrors[0].error as SinkRecordError;
    assertEquals([error.classification, h.context.recordErrors[0].record.kafkaOffset], ["invalid_field", 1]);
    assertEquals(described(h.proxy.writes()).map(([, , body]) => body), [
      { short_description: "task field", caller_id: "" },
      { urgency: "1" },
    ]);
  }
  {
    await using h = await startHarness({ config: { "svc.sink.unknown.field.behavior": "drop" } });
    const sysId = seedIncident(h.sim);
    await h.put(
      sinkRecord({ offset: 0, key: sysId, value: mapValue({ short_description: "kept", bogus: "x" }) }),
    );
    await h.put(sinkRecord({ offset: 1, key: sysId, value: mapValue({ bogus: "y" }) }));
    assertEquals(described(h.proxy.writes()), [
      ["PATCH", `${INCIDENT}/${sysId}`, { short_description: "kept" }],
      ["PATCH", `${INCIDENT}/${sysId}`, {}],
    ]);
    assertEquals(h.context.recordErrors, []);
    // Without a reporter topic the drop still shows: one warning per table and field, not one per record.
    assertEquals(h.context.lines.filter((l) => l.level === "warn").map((l) => l.fields), [
      { table: "incident", fields: ["bogus"] },
    ]);
  }
  {
    await using h = await startHarness({ config: { "svc.sink.unknown.field.behavior": "passthrough" } });
    const sysId = seedIncident(h.sim);
    await h.put(
      sinkRecord({ offset: 0, key: sysId, value: mapValue({ short_description: "kept", u_custom: "x" }) }),
    );
    assertEquals(described(h.proxy.writes()), [["PATCH", `${INCIDENT}/${sysId}`, {
      short_description: "kept",
      u_custom: "x",
    }]]);
    assertEquals(dictionaryReads(h), 0);
  }
});

Deno.test("a u_ column from the dictionary passes rename, allowlist and the unknown-field check unchanged", async () => {
  await using h = await startHarness({
    config: {
      "svc.sink.field.rename": "vendor_ref:u_vendor_ref",
      "svc.sink.field.allowlist": "u_vendor_ref,short_description",
    },
    beforeStart: (sim) =>
      sim.table("sys_dictionary").insert({
        name: "incident",
        element: "u_vendor_ref",
        internal_type: "string",
      }),
  });
  const sysId = seedIncident(h.sim);
  await h.put(
    sinkRecord({
      offset: 0,
      key: sysId,
      value: mapValue({ vendor_ref: "V-9", short_description: "s", urgency: 1 }),
    }),
  );
  assertEquals(described(h.proxy.writes()), [["PATCH", `${INCIDENT}/${sysId}`, {
    u_vendor_ref: "V-9",
    short_description: "s",
  }]]);
  assertEquals(h.context.recordErrors, []);
});

Deno.test("nested values through the task: reject is a record error, flatten writes joined names", async () => {
  {
    await using h = await startHarness({ config: { "behavior.on.api.errors": "ignore" } });
    const sysId = seedIncident(h.sim);
    await h.put(
      sinkRecord({ offset: 0, key: sysId, value: mapValue({ location: mapValue({ city: "Oslo" }) }) }),
    );
    assertEquals(h.proxy.writes(), []);
    assertEquals((h.context.recordErrors[0].error as SinkRecordError).classification, "mapping");
    assertEquals(await h.task.preCommit([{ topic: "incidents", partition: 0, offset: 1 }]), [
      { topic: "incidents", partition: 0, offset: 1 },
    ]);
  }
  {
    await using h = await startHarness({
      config: { "svc.sink.nested.behavior": "flatten", "svc.sink.unknown.field.behavior": "passthrough" },
    });
    const sysId = seedIncident(h.sim);
    await h.put(
      sinkRecord({
        offset: 0,
        key: sysId,
        value: mapValue({ location: mapValue({ city: "Oslo", zip: "0150" }) }),
      }),
    );
    assertEquals(described(h.proxy.writes()), [["PATCH", `${INCIDENT}/${sysId}`, {
      location_city: "Oslo",
      location_zip: "0150",
    }]]);
  }
});

Deno.test("creates and updates ask back the fields they sent (verified writes), the sys id only without, singly and in batches", async () => {
  const batched: Record<string, string> = {
    "svc.sink.batch.enabled": "true",
    "svc.sink.batch.max.records": "10",
  };
  const unverified = { "svc.sink.verify.writes": "false" };
  for (const config of [{}, batched, unverified, { ...batched, ...unverified }]) {
    const asked = "svc.sink.verify.writes" in config ? "sys_id" : "sys_id,short_description";
    await using h = await startHarness({ config });
    const existing = seedIncident(h.sim);
    const doomed = seedIncident(h.sim);
    await h.put(
      sinkRecord({ offset: 0, key: existing, value: mapValue({ short_description: "new" }) }),
      sinkRecord({ offset: 1, value: mapValue({ short_description: "created" }) }),
      sinkRecord({ offset: 2, key: doomed, value: null }),
    );
    const writes = h.sim.journal.find((e) => e.route.includes("/table/incident") && e.method !== "GET");
    assertEquals(
      writes.map((e) => [e.method, e.params.sysparm_fields ?? null]).sort(),
      [["DELETE", null], ["PATCH", asked], ["POST", asked]],
      JSON.stringify(config),
    );
    const created = h.sim.table("incident").sysIds().filter((id) =>
      h.sim.table("incident").get(id)?.short_description === "created"
    );
    assertEquals(created.length, 1);
    assertEquals(h.sim.table("incident").get(existing)?.short_description, "new");
    assertEquals(h.context.recordErrors, []);
  }
});
