/**
 * AvroConverter against the test registry over real HTTP: strings- and typed-mode round trips, the registered
 * schema text, independent decoding with avsc, a growing strings schema, Confluent's documented bytes.
 */
import avsc from "avsc";
import { Buffer } from "node:buffer";
import { assert, assertEquals, assertRejects, assertThrows } from "../../support/assert.ts";
import { startSchemaRegistry } from "../../support/schema_registry.ts";
import { AvroConverter } from "../../../src/connect/registry/avro/avro_converter.ts";
import { BigDecimal } from "../../../src/connect/big_decimal.ts";
import { DataException } from "../../../src/connect/errors.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { ConnectDecimal } from "../../../src/connect/logical.ts";
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

function avro(url: string, extra: Record<string, string> = {}, isKey = false): AvroConverter {
  const c = new AvroConverter();
  c.configure({ "schema.registry.url": url, ...extra }, isKey);
  return c;
}

Deno.test("strings mode: registers Confluent's Avro schema text and round-trips; avsc decodes the bytes", async () => {
  await using registry = startSchemaRegistry();
  const converter = avro(registry.url);
  const schema = stringsSchema(["sys_id", "short_description", "u_notes"]);
  const value = stringsValue(schema, { sys_id: "abc", short_description: "Email down", u_notes: null });
  const bytes = (await write(converter, schema, value))!;

  const [registered] = registry.versions(`${TOPIC}-value`);
  assertEquals(
    registered.schema,
    '{"type":"record","name":"incident","namespace":"tablesync","fields":[' +
      '{"name":"sys_id","type":["null","string"],"default":null},' +
      '{"name":"short_description","type":["null","string"],"default":null},' +
      '{"name":"u_notes","type":["null","string"],"default":null}],' +
      '"connect.version":1,"connect.name":"tablesync.incident"}',
  );
  assertEquals(bytes[0], 0);
  assertEquals(schemaIdOf(bytes), registered.id);

  const decoded = avsc.Type.forSchema(JSON.parse(registered.schema)).fromBuffer(
    Buffer.from(bytes.subarray(5)),
  );
  assertEquals({ ...decoded }, { sys_id: "abc", short_description: "Email down", u_notes: null });

  const back = await read(avro(registry.url), bytes);
  assert(back.schema!.equals(schema), `schema ${back.schema} differs`);
  assert((back.value as Struct).equals(value));
});

Deno.test("typed mode: logical types map to Avro logical types; values round-trip and avsc agrees", async () => {
  await using registry = startSchemaRegistry();
  const converter = avro(registry.url);
  const schema = typedSchema();
  const bytes = (await write(converter, schema, typedValue(schema)))!;
  const text = registry.versions(`${TOPIC}-value`)[0].schema;
  const fields = Object.fromEntries(
    (JSON.parse(text).fields as Array<{ name: string; type: unknown }>).map((f) => [f.name, f.type]),
  );
  assertEquals(fields.cost, ["null", {
    type: "bytes",
    scale: 2,
    precision: 64,
    "connect.version": 1,
    "connect.parameters": { scale: "2" },
    "connect.name": "org.apache.kafka.connect.data.Decimal",
    logicalType: "decimal",
  }]);
  assertEquals(fields.opened_at, ["null", {
    type: "long",
    "connect.version": 1,
    "connect.name": "org.apache.kafka.connect.data.Timestamp",
    logicalType: "timestamp-millis",
  }]);
  assertEquals(fields.due_date, ["null", {
    type: "int",
    "connect.version": 1,
    "connect.name": "org.apache.kafka.connect.data.Date",
    logicalType: "date",
  }]);
  assertEquals(fields.work_start, ["null", {
    type: "int",
    "connect.version": 1,
    "connect.name": "org.apache.kafka.connect.data.Time",
    logicalType: "time-millis",
  }]);
  assertEquals(fields.priority, ["null", "int"]);
  assertEquals(fields.reassignment_count, ["null", "long"]);

  // avsc without logical type hooks: the underlying values.
  const decoded = avsc.Type.forSchema(JSON.parse(text)).fromBuffer(Buffer.from(bytes.subarray(5)));
  assertEquals(decoded.sys_id, TYPED_VALUES.sys_id);
  assertEquals(decoded.short_description, TYPED_VALUES.short_description);
  assertEquals(decoded.priority, 2);
  assertEquals(decoded.reassignment_count, 42);
  assertEquals(decoded.active, true);
  assertEquals(decoded.business_stc, 1234.5);
  assertEquals([...decoded.cost as Uint8Array], [0xcf, 0xc7]); // -12345 big-endian two's complement
  assertEquals(decoded.opened_at, Date.UTC(2024, 9, 1, 12, 0, 5));
  assertEquals(decoded.due_date, Date.UTC(2024, 9, 31) / 86_400_000);
  assertEquals(decoded.work_start, 9 * 3600_000 + 30 * 60_000 + 15_000);
  assertEquals(decoded.close_notes, null);

  const back = await read(avro(registry.url), bytes);
  assert(back.schema!.equals(schema), `schema ${back.schema} differs`);
  const struct = back.value as Struct;
  assert(struct.equals(typedValue(schema)), `value ${struct} differs`);
  assertEquals((struct.get("cost") as BigDecimal).toString(), "-123.45");
});

Deno.test("int64 values beyond 2^53 survive as bigint", async () => {
  await using registry = startSchemaRegistry();
  const schema = SchemaBuilder.struct().name("t.Big").field("n", Schema.INT64_SCHEMA).build();
  const value = new Struct(schema).put("n", 9223372036854775807n);
  const bytes = (await write(avro(registry.url), schema, value))!;
  const back = await read(avro(registry.url), bytes);
  assertEquals((back.value as Struct).get("n"), 9223372036854775807n);
});

Deno.test("a growing strings schema registers a new, backward-compatible version", async () => {
  await using registry = startSchemaRegistry();
  const converter = avro(registry.url);
  const v1 = stringsSchema(["sys_id", "short_description"], 1);
  const v2 = stringsSchema(["sys_id", "short_description", "category"], 2);
  const first = (await write(converter, v1, stringsValue(v1, { sys_id: "a", short_description: "one" })))!;
  const second = (await write(converter, v2, stringsValue(v2, { sys_id: "b", category: "network" })))!;
  const versions = registry.versions(`${TOPIC}-value`);
  assertEquals(versions.map((v) => v.version), [1, 2]);
  assertEquals([schemaIdOf(first), schemaIdOf(second)], [versions[0].id, versions[1].id]);
  // avsc: the new schema reads data written with the old one (BACKWARD).
  const readerType = avsc.Type.forSchema(JSON.parse(versions[1].schema));
  const resolver = readerType.createResolver(avsc.Type.forSchema(JSON.parse(versions[0].schema)));
  const old = readerType.fromBuffer(Buffer.from(first.subarray(5)), resolver);
  assertEquals({ ...old }, { sys_id: "a", short_description: "one", category: null });
  // Records written before the change still read with their own schema.
  const reader = avro(registry.url);
  assertEquals((await read(reader, first)).schema!.fields().length, 2);
  assertEquals((await read(reader, second)).schema!.fields().length, 3);
  assertEquals((await read(reader, second)).schema!.version, 2);
  // The same schema again is not registered again.
  await write(converter, v2, stringsValue(v2, { sys_id: "c" }));
  assertEquals(registry.versions(`${TOPIC}-value`).length, 2);
});

Deno.test("Confluent's documented Avro bytes decode: myrecord {f1: value1} under schema id 1", async () => {
  await using registry = startSchemaRegistry();
  const id = registry.register(
    `${TOPIC}-value`,
    '{"type":"record","name":"myrecord","fields":[{"name":"f1","type":"string"}]}',
  );
  assertEquals(id, 1);
  const bytes = fromHex("00 00 00 00 01 0c 76 61 6c 75 65 31");
  const back = await read(avro(registry.url), bytes);
  assertEquals(back.schema!.name, "myrecord");
  assertEquals(back.schema!.version, 1); // the registry version, as the schema has no connect.version
  assertEquals((back.value as Struct).get("f1"), "value1");
  // Written back, the payload is the same; like Confluent's AvroData the schema gains connect.* metadata, so it
  // is a new schema (id 2).
  const again = (await write(avro(registry.url), back.schema, back.value))!;
  assertEquals([...again.subarray(5)], [...bytes.subarray(5)]);
  assertEquals(schemaIdOf(again), 2);
});

Deno.test("Decimal bytes 00 9C with scale 2 read as 1.56 (Connect's documented Decimal example)", async () => {
  await using registry = startSchemaRegistry();
  registry.register(
    `${TOPIC}-value`,
    '{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},' +
      '"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}',
  );
  const back = await read(avro(registry.url), fromHex("00 00 00 00 01 04 00 9c"));
  assert(back.schema!.equals(ConnectDecimal.schema(2)), `${back.schema}`);
  assertEquals((back.value as BigDecimal).toString(), "1.56");
});

Deno.test("subject name strategies, and a STRING key under <topic>-key", async () => {
  await using registry = startSchemaRegistry();
  const schema = stringsSchema(["sys_id"]);
  const value = stringsValue(schema, { sys_id: "x" });
  await write(
    avro(registry.url, {
      "value.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy",
    }),
    schema,
    value,
  );
  await write(
    avro(registry.url, {
      "value.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
    }),
    schema,
    value,
  );
  const key = (await write(avro(registry.url, {}, true), Schema.STRING_SCHEMA, "46d44a5e"))!;
  assertEquals(registry.subjects().sort(), [
    `${TOPIC}-key`,
    `${TOPIC}-tablesync.incident`,
    "tablesync.incident",
  ]);
  assertEquals(registry.versions(`${TOPIC}-key`)[0].schema, '"string"');
  assertEquals(avsc.Type.forSchema("string").fromBuffer(Buffer.from(key.subarray(5))), "46d44a5e");
  assertThrows(
    () => avro(registry.url, { "value.subject.name.strategy": "Nope" }),
    Error,
    "value.subject.name.strategy",
  );
});

Deno.test("use.latest.version writes with the subject's latest schema; lookups fail for unknown schemas", async () => {
  await using registry = startSchemaRegistry();
  const latest = '{"type":"record","name":"incident","namespace":"tablesync","fields":[' +
    '{"name":"sys_id","type":["null","string"],"default":null},' +
    '{"name":"priority","type":"int","default":4}]}';
  const id = registry.register(`${TOPIC}-value`, latest);
  const schema = stringsSchema(["sys_id"]);
  const bytes = (await write(
    avro(registry.url, { "auto.register.schemas": "false", "use.latest.version": "true" }),
    schema,
    stringsValue(schema, { sys_id: "abc" }),
  ))!;
  assertEquals(schemaIdOf(bytes), id);
  assertEquals({ ...avsc.Type.forSchema(JSON.parse(latest)).fromBuffer(Buffer.from(bytes.subarray(5))) }, {
    sys_id: "abc",
    priority: 4,
  });
  assertEquals(registry.versions(`${TOPIC}-value`).length, 1);

  const error = await assertRejects(
    () => write(avro(registry.url, { "auto.register.schemas": "false" }), schema, stringsValue(schema, {})),
    DataException,
  );
  assert(error.message.includes("40403"), error.message);
});

Deno.test("schemaless values are rejected; null values are tombstones; prepare is required", async () => {
  await using registry = startSchemaRegistry();
  const converter = avro(registry.url);
  await assertRejects(() => write(converter, null, new Map([["a", "b"]])), DataException, "needs a schema");
  assertEquals(await write(converter, null, null), null);
  assertEquals(await write(converter, Schema.OPTIONAL_STRING_SCHEMA, null), null);
  await assertRejects(() => write(converter, stringsSchema(["a"]), null), DataException, "required");
  assertEquals((await read(converter, null)).value, null);
  const schema = stringsSchema(["sys_id"]);
  assertThrows(() => converter.fromConnectData(TOPIC, schema, stringsValue(schema, {})), Error, "prepare");
  assertEquals(registry.requests.length, 0);
});
