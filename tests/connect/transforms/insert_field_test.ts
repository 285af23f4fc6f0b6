import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException, DataException } from "../../../src/connect/errors.ts";
import { ConnectTimestamp } from "../../../src/connect/logical.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, sink, source, transform } from "./helpers.ts";

// Kafka's InsertFieldTest configuration: `!` makes the topic field required, the rest stay optional.
const PROPS = {
  "topic.field": "topic_field!",
  "partition.field": "partition_field",
  "timestamp.field": "timestamp_field?",
  "static.field": "instance_id",
  "static.value": "my-instance-id",
};

Deno.test("InsertField$Value on a Struct appends fields with ! required and ? optional schemas", () => {
  const schema = SchemaBuilder.struct().name("name").version(1).doc("doc")
    .field("magic", Schema.OPTIONAL_INT64_SCHEMA).build();
  const record = source({ valueSchema: schema, value: new Struct(schema).put("magic", 42) });
  const out = applied(transform("InsertField$Value", PROPS), record);
  const s = out.valueSchema!;
  assertEquals([s.name, s.version, s.doc], ["name", 1, "doc"]);
  assert(s.field("topic_field")!.schema.equals(Schema.STRING_SCHEMA), "topic field is required");
  assert(s.field("partition_field")!.schema.equals(Schema.OPTIONAL_INT32_SCHEMA));
  assert(s.field("timestamp_field")!.schema.equals(ConnectTimestamp.builder().optional().build()));
  assert(s.field("instance_id")!.schema.equals(Schema.OPTIONAL_STRING_SCHEMA));
  const v = out.value as Struct;
  assertEquals(v.get("magic"), 42);
  assertEquals(v.get("topic_field"), "test");
  assertEquals(v.get("partition_field"), 0);
  assertEquals(v.get("timestamp_field"), new Date(123));
  assertEquals(v.get("instance_id"), "my-instance-id");
});

Deno.test("InsertField$Value on a Map adds entries, the timestamp as epoch millis", () => {
  const out = applied(transform("InsertField$Value", PROPS), source({ value: { magic: 42 } }));
  assertEquals(out.value, {
    magic: 42,
    topic_field: "test",
    partition_field: 0,
    timestamp_field: 123,
    instance_id: "my-instance-id",
  });
  const fromMap = applied(transform("InsertField$Value", PROPS), source({ value: new Map([["magic", 42]]) }));
  assert(fromMap.value instanceof Map, "a Map stays a Map");
  assertEquals((fromMap.value as Map<string, unknown>).get("topic_field"), "test");
});

Deno.test("InsertField$Key inserts into the key; offset.field needs a sink record", () => {
  const keyed = applied(transform("InsertField$Key", { "topic.field": "t" }), source({ key: { id: 1 } }));
  assertEquals(keyed.key, { id: 1, t: "test" });
  const offsets = transform("InsertField$Value", { "offset.field": "off" });
  assertEquals(applied(offsets, sink({ value: {} })).value, { off: 42 });
  assertThrows(
    () => offsets.apply(source({ value: {} })),
    DataException,
    "Only SinkRecord supported for [field insertion]",
  );
});

Deno.test("InsertField passes tombstones through and rejects non-map schemaless values", () => {
  const t = transform("InsertField$Value", PROPS);
  const tombstone = source({ value: null });
  assertEquals(t.apply(tombstone), tombstone);
  assertThrows(() => t.apply(source({ value: 42 })), DataException, "Only Map objects supported");
});

Deno.test("InsertField config errors: nothing to insert, static field without value", () => {
  assertThrows(() => transform("InsertField$Value", {}), ConfigException, "No field insertion configured");
  assertThrows(
    () => transform("InsertField$Value", { "static.field": "x" }),
    ConfigException,
    "No value specified for static field: x",
  );
});

Deno.test("InsertField replace.null.with.default=false keeps nulls instead of defaults", () => {
  const schema = SchemaBuilder.struct().field("n", SchemaBuilder.int32().optional().defaultValue(7).build())
    .build();
  const value = new Struct(schema);
  const withDefault = applied(
    transform("InsertField$Value", { "topic.field": "t" }),
    source({ valueSchema: schema, value }),
  );
  assertEquals((withDefault.value as Struct).getWithoutDefault("n"), 7);
  const keepNull = applied(
    transform("InsertField$Value", { "topic.field": "t", "replace.null.with.default": "false" }),
    source({ valueSchema: schema, value }),
  );
  assertEquals((keepNull.value as Struct).getWithoutDefault("n"), null);
});
