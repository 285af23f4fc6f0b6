/** Keys, routing and operation resolution: what a record asks for, before any request. */
import { assertEquals, assertThrows } from "../support/assert.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import { MappingError } from "../../src/sink/record_error.ts";
import { sysIdFromKey } from "../../src/sink/record_key.ts";
import { planWrite } from "../../src/sink/write_plan.ts";
import type { RawConfig } from "../../src/common/props.ts";
import { type RecordSpec, sinkRecord } from "./support/records.ts";
import { settingsOf } from "./support/settings.ts";

const SYS_ID = "46d44a5ea9fe198101aaa6c50d34f8bd";

function plan(spec: Omit<RecordSpec, "offset">, overrides: RawConfig = {}) {
  return planWrite(sinkRecord({ offset: 0, ...spec }), settingsOf(overrides));
}

Deno.test("a String key is the sys id; Struct and Map keys carry it in svc.sink.sys.id.key.field", () => {
  assertEquals(sysIdFromKey(SYS_ID, "sys_id"), SYS_ID);
  const keySchema = SchemaBuilder.struct().field("sysId", Schema.STRING_SCHEMA).field(
    "table",
    Schema.STRING_SCHEMA,
  )
    .build();
  assertEquals(
    sysIdFromKey(new Struct(keySchema).put("sysId", SYS_ID).put("table", "incident"), "sysId"),
    SYS_ID,
  );
  assertEquals(sysIdFromKey(new Map([["sys_id", SYS_ID]]), "sys_id"), SYS_ID);
  assertEquals(sysIdFromKey({ sys_id: SYS_ID }, "sys_id"), SYS_ID);
  assertEquals(sysIdFromKey(null, "sys_id"), null);
  assertEquals(sysIdFromKey(new Map([["sys_id", null]]), "sys_id"), null);
});

Deno.test("keys that cannot name a row are record errors", () => {
  const keySchema = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).build();
  assertThrows(
    () => sysIdFromKey(new Struct(keySchema).put("id", SYS_ID), "sys_id"),
    MappingError,
    'no field "sys_id"',
  );
  assertThrows(() => sysIdFromKey(new Map([["id", SYS_ID]]), "sys_id"), MappingError, 'no entry "sys_id"');
  assertThrows(() => sysIdFromKey(new Map([["sys_id", 5]]), "sys_id"), MappingError, "not a String sys id");
  assertThrows(() => sysIdFromKey(42, "sys_id"), MappingError, "the record key is a number");
  assertThrows(() => sysIdFromKey("  ", "sys_id"), MappingError, "is empty");
});

Deno.test("key_value: a key updates, no key creates, a null value deletes", () => {
  assertEquals(plan({ key: SYS_ID, value: { a: "1" } }).operation, "update");
  assertEquals(plan({ value: { a: "1" } }).operation, "create");
  const del = plan({ key: SYS_ID, value: null });
  assertEquals([del.operation, del.sysId, del.body], ["delete", SYS_ID, {}]);
  assertThrows(() => plan({ value: null }), MappingError, "DELETE needs the row's sys id");
});

Deno.test("header mode reads CREATE, UPDATE, UPSERT, DELETE (any case) from the operation header", () => {
  const mode = { "svc.sink.operation.mode": "header" };
  const op = (operation: string, key: string | null, value: unknown) =>
    plan({ key, value, headers: { "svc.operation": operation } }, mode).operation;
  assertEquals(op("CREATE", null, { a: "1" }), "create");
  assertEquals(op("update", SYS_ID, { a: "1" }), "update");
  assertEquals(op("UPSERT", SYS_ID, { a: "1" }), "upsert");
  assertEquals(op("UPSERT", null, { a: "1" }), "create");
  assertEquals(op("Delete", SYS_ID, { a: "1" }), "delete");
  assertEquals(op("DELETE", SYS_ID, null), "delete");
  assertThrows(
    () => op("MERGE", SYS_ID, { a: "1" }),
    MappingError,
    "expected CREATE, UPDATE, UPSERT or DELETE",
  );
  assertThrows(
    () => plan({ key: SYS_ID, value: { a: "1" } }, mode),
    MappingError,
    'no "svc.operation" header',
  );
  assertThrows(() => op("UPDATE", SYS_ID, null), MappingError, "only a delete accepts");
  assertThrows(() => op("UPDATE", null, { a: "1" }), MappingError, "UPDATE needs the row's sys id");
});

Deno.test("fixed mode: every record gets svc.sink.operation.fixed; a null value only suits delete", () => {
  const fixed = (operation: string) => ({
    "svc.sink.operation.mode": "fixed",
    "svc.sink.operation.fixed": operation,
  });
  assertEquals(plan({ key: SYS_ID, value: { a: "1" } }, fixed("create")).operation, "create");
  assertEquals(plan({ key: SYS_ID, value: null }, fixed("delete")).operation, "delete");
  assertThrows(
    () => plan({ key: SYS_ID, value: null }, fixed("update")),
    MappingError,
    "only a delete accepts",
  );
  assertThrows(
    () => plan({ key: SYS_ID, value: null }, fixed("create")),
    MappingError,
    "only a delete accepts",
  );
});

Deno.test("routing: fixed, topic_map and header (restricted to the allowlist)", () => {
  assertEquals(plan({ value: { a: "1" } }).table, "incident");
  const topicMap = {
    "topics": "incidents,problems",
    "svc.sink.routing.mode": "topic_map",
    "svc.sink.topic.incidents.table": "incident",
    "svc.sink.topic.problems.table": "problem",
  };
  assertEquals(plan({ topic: "problems", value: { a: "1" } }, topicMap).table, "problem");
  assertThrows(
    () => plan({ topic: "other", value: { a: "1" } }, topicMap),
    MappingError,
    'no table is mapped for topic "other"',
  );
  const header = { "svc.sink.routing.mode": "header", "svc.sink.table.allowlist": "incident,problem" };
  assertEquals(plan({ value: { a: "1" }, headers: { "svc.table": "problem" } }, header).table, "problem");
  assertThrows(
    () => plan({ value: { a: "1" }, headers: { "svc.table": "sys_user" } }, header),
    MappingError,
    'names table "sys_user", which is not in svc.sink.table.allowlist',
  );
  assertThrows(() => plan({ value: { a: "1" } }, header), MappingError, 'no "svc.table" header');
  assertEquals(
    plan({ value: { a: "1" }, headers: { dest: "incident" } }, { ...header, "svc.sink.table.header": "dest" })
      .table,
    "incident",
  );
});

Deno.test("the ordering key is the row, or the correlation value for keyless creates under correlation_lookup", () => {
  assertEquals(plan({ key: SYS_ID, value: { a: "1" } }).orderingKey, `row\u0000incident\u0000${SYS_ID}`);
  assertEquals(plan({ value: { correlation_id: "C-1" } }).orderingKey, null);
  const correlation = {
    "svc.sink.create.ambiguous.behavior": "correlation_lookup",
    "svc.sink.correlation.field": "correlation_id",
  };
  assertEquals(
    plan({ value: { correlation_id: "C-1" } }, correlation).orderingKey,
    "correlation\u0000incident\u0000C-1",
  );
});
