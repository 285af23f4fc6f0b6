/**
 * ProtobufConverter against the test registry: the registered .proto, message indexes, independent decoding
 * with protobufjs, null handling (plain fields vs wrappers), growth, Confluent's documented bytes.
 */
import protobuf from "protobufjs";
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { startSchemaRegistry } from "../../support/schema_registry.ts";
import { ProtobufConverter } from "../../../src/connect/registry/protobuf/protobuf_converter.ts";
import type { BigDecimal } from "../../../src/connect/big_decimal.ts";
import { DataException } from "../../../src/connect/errors.ts";
import type { Struct } from "../../../src/connect/struct.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct as StructValue } from "../../../src/connect/struct.ts";
import {
  fromHex,
  read,
  schemaIdOf,
  stringsSchema,
  stringsValue,
  TOPIC,
  TYPED_VALUES,
  typedSchema,
  typedValue,
  write,
} from "./fixtures.ts";

function proto(url: string, extra: Record<string, string> = {}): ProtobufConverter {
  const c = new ProtobufConverter();
  c.configure({ "schema.registry.url": url, ...extra }, false);
  return c;
}

/** The imported well-known types, declared for protobufjs (it does not ship google.type or confluent.type). */
const DEPENDENCIES = [
  'syntax = "proto3"; package google.protobuf; message Timestamp { int64 seconds = 1; int32 nanos = 2; }' +
  " message StringValue { string value = 1; } message Int32Value { int32 value = 1; }",
  'syntax = "proto3"; package google.type; message Date { int32 year = 1; int32 month = 2; int32 day = 3; }' +
  " message TimeOfDay { int32 hours = 1; int32 minutes = 2; int32 seconds = 3; int32 nanos = 4; }",
  'syntax = "proto3"; package confluent.type; message Decimal { bytes value = 1; uint32 precision = 2; int32 scale = 3; }',
];

function protobufjsType(protoText: string, name: string): protobuf.Type {
  const root = new protobuf.Root();
  for (const dep of DEPENDENCIES) protobuf.parse(dep, root, { keepCase: true });
  protobuf.parse(protoText, root, { keepCase: true });
  root.resolveAll();
  return root.lookupType(name);
}

Deno.test("strings mode: proto3 message in the schema's package; index [0] is one zero byte; protobufjs decodes", async () => {
  await using registry = startSchemaRegistry();
  const schema = stringsSchema(["sys_id", "short_description", "u_notes"]);
  const value = stringsValue(schema, { sys_id: "abc", short_description: "Email down", u_notes: null });
  const bytes = (await write(proto(registry.url), schema, value))!;
  const [registered] = registry.versions(`${TOPIC}-value`);
  assertEquals(registered.schemaType, "PROTOBUF");
  assertEquals(
    registered.schema,
    'syntax = "proto3";\npackage tablesync;\n\nmessage incident {\n  string sys_id = 1;\n' +
      "  string short_description = 2;\n  string u_notes = 3;\n}\n",
  );
  assertEquals(schemaIdOf(bytes), registered.id);
  assertEquals(bytes[5], 0); // message indexes [0]
  const decoded = protobufjsType(registered.schema, "tablesync.incident").decode(bytes.subarray(6));
  assertEquals(decoded.toJSON(), { sys_id: "abc", short_description: "Email down" });

  // As with Confluent's defaults, the null string comes back as "" (proto3 has no null for plain fields).
  const back = await read(proto(registry.url), bytes);
  const struct = back.value as Struct;
  assertEquals(back.schema!.name, "incident");
  assertEquals(
    back.schema!.field("sys_id")!.schema.parameters?.get("io.confluent.connect.protobuf.Tag"),
    "1",
  );
  assertEquals([struct.get("sys_id"), struct.get("short_description"), struct.get("u_notes")], [
    "abc",
    "Email down",
    "",
  ]);
});

Deno.test("wrapper.for.nullables keeps nulls with google.protobuf.StringValue", async () => {
  await using registry = startSchemaRegistry();
  const converter = proto(registry.url, { "wrapper.for.nullables": "true" });
  const schema = stringsSchema(["sys_id", "u_notes"]);
  const bytes = (await write(converter, schema, stringsValue(schema, { sys_id: "abc", u_notes: null })))!;
  const text = registry.versions(`${TOPIC}-value`)[0].schema;
  assert(text.includes('import "google/protobuf/wrappers.proto";'), text);
  assert(text.includes("google.protobuf.StringValue sys_id = 1;"), text);
  const decoded = protobufjsType(text, "tablesync.incident").decode(bytes.subarray(6)).toJSON();
  assertEquals(decoded, { sys_id: { value: "abc" } });
  const back = (await read(proto(registry.url, { "wrapper.for.nullables": "true" }), bytes)).value as Struct;
  assertEquals([back.get("sys_id"), back.get("u_notes")], ["abc", null]);
});

Deno.test("typed mode: Decimal, Timestamp, Date, TimeOfDay messages; protobufjs reads the same values", async () => {
  await using registry = startSchemaRegistry();
  const schema = typedSchema();
  const bytes = (await write(proto(registry.url), schema, typedValue(schema)))!;
  const text = registry.versions(`${TOPIC}-value`)[0].schema;
  for (
    const line of [
      'import "confluent/type/decimal.proto";',
      'import "google/protobuf/timestamp.proto";',
      'confluent.type.Decimal cost = 7 [(confluent.field_meta) = { params: [{ key: "scale", value: "2" }] }];',
      "google.protobuf.Timestamp opened_at = 8;",
      "google.type.Date due_date = 9;",
      "google.type.TimeOfDay work_start = 10;",
    ]
  ) assert(text.includes(line), `missing ${line} in\n${text}`);
  const decoded = protobufjsType(text, "tablesync.incident").decode(bytes.subarray(6)).toJSON();
  assertEquals(decoded.sys_id, TYPED_VALUES.sys_id);
  assertEquals(decoded.priority, 2);
  assertEquals(decoded.reassignment_count, "42"); // protobufjs prints int64 as a string
  assertEquals(decoded.active, true);
  assertEquals(decoded.business_stc, 1234.5);
  assertEquals(decoded.cost, { value: "z8c=", precision: 5, scale: 2 });
  assertEquals(decoded.opened_at, { seconds: String(Date.UTC(2024, 9, 1, 12, 0, 5) / 1000) });
  assertEquals(decoded.due_date, { year: 2024, month: 10, day: 31 });
  assertEquals(decoded.work_start, { hours: 9, minutes: 30, seconds: 15 });

  const back = (await read(proto(registry.url), bytes)).value as Struct;
  assertEquals((back.get("cost") as BigDecimal).toString(), "-123.45");
  assertEquals(back.get("opened_at"), TYPED_VALUES.opened_at);
  assertEquals(back.get("due_date"), TYPED_VALUES.due_date);
  assertEquals(back.get("work_start"), TYPED_VALUES.work_start);
  assertEquals(back.get("reassignment_count"), 42);
  assertEquals(back.get("close_notes"), "");
});

Deno.test("a growing strings schema registers version 2 and old bytes still read", async () => {
  await using registry = startSchemaRegistry();
  const converter = proto(registry.url);
  const v1 = stringsSchema(["sys_id"], 1);
  const v2 = stringsSchema(["sys_id", "category"], 2);
  const first = (await write(converter, v1, stringsValue(v1, { sys_id: "a" })))!;
  await write(converter, v2, stringsValue(v2, { sys_id: "b", category: "x" }));
  assertEquals(registry.versions(`${TOPIC}-value`).map((v) => v.version), [1, 2]);
  const back = await read(proto(registry.url), first);
  assertEquals(back.schema!.version, 1);
  assertEquals((back.value as Struct).get("sys_id"), "a");
});

Deno.test("Confluent's documented Protobuf bytes decode, including message indexes [1]", async () => {
  await using registry = startSchemaRegistry();
  registry.register(
    `${TOPIC}-value`,
    'syntax = "proto3";\npackage com.acme;\n\nmessage MyRecord {\n  string f1 = 1;\n}\n' +
      "message OtherRecord {\n  int32 other_id = 1;\n}\n",
    "PROTOBUF",
  );
  // magic 0, id 1, indexes [0] as the single byte 0, then field 1 "value1"
  const first = await read(proto(registry.url), fromHex("00 00 00 00 01 00 0a 06 76 61 6c 75 65 31"));
  assertEquals(first.schema!.name, "MyRecord");
  assertEquals((first.value as Struct).get("f1"), "value1");
  // indexes [1]: count 1 and index 1, each a zig-zag varint (02 02); then field 1 = 123
  const second = await read(proto(registry.url), fromHex("00 00 00 00 01 02 02 08 7b"));
  assertEquals(second.schema!.name, "OtherRecord");
  assertEquals((second.value as Struct).get("other_id"), 123);
});

Deno.test("schemaless values and non-struct schemas are rejected", async () => {
  await using registry = startSchemaRegistry();
  await assertRejects(() => write(proto(registry.url), null, new Map()), DataException, "needs a schema");
  await assertRejects(() => write(proto(registry.url), Schema.STRING_SCHEMA, "x"), DataException, "STRUCT");
});

Deno.test("an envelope's before and after share one nested message, which protobufjs reads; a null before stays null", async () => {
  await using registry = startSchemaRegistry();
  const row = stringsSchema(["sys_id"]);
  const optionalRow = SchemaBuilder.struct().name(row.name!).field("sys_id", Schema.OPTIONAL_STRING_SCHEMA)
    .optional().build();
  const envelope = SchemaBuilder.struct().name("tablesync.incident.Envelope")
    .field("before", optionalRow).field("after", optionalRow).field("op", Schema.STRING_SCHEMA).build();
  const value = new StructValue(envelope).put("after", new StructValue(optionalRow).put("sys_id", "abc"))
    .put("op", "c");
  const bytes = (await write(proto(registry.url), envelope, value))!;
  const text = registry.versions(`${TOPIC}-value`)[0].schema;
  assertEquals(text.match(/message incident \{/g)?.length, 1, text);
  const decoded = protobufjsType(text, "tablesync.incident.Envelope").decode(bytes.subarray(6)).toJSON();
  assertEquals(decoded, { after: { sys_id: "abc" }, op: "c" });
  const back = (await read(proto(registry.url), bytes)).value as Struct;
  assertEquals(back.get("before"), null);
  assertEquals((back.get("after") as Struct).get("sys_id"), "abc");
});
