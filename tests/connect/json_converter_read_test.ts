/** JsonConverter reading (`toConnectData`), on the inputs of Kafka's JsonConverterTest, plus round trips. */
import { assert, assertEquals, assertStrictEquals, assertThrows } from "../support/assert.ts";
import { NULL_SCHEMA_AND_VALUE, Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../src/connect/logical.ts";
import { ConfigException, DataException } from "../../src/connect/errors.ts";
import { valuesEqual } from "../../src/connect/equality.ts";
import { assertSchemaAndValue, bytes, jsonConverter, TOPIC } from "./helpers.ts";

const read = (json: string, configs: Record<string, string> = {}) =>
  jsonConverter(configs).toConnectData(TOPIC, bytes(json));

Deno.test("JsonConverter reads schema metadata", () => {
  assertSchemaAndValue(
    read('{ "schema": { "type": "boolean" }, "payload": true }'),
    Schema.BOOLEAN_SCHEMA,
    true,
  );
  assertSchemaAndValue(
    read('{ "schema": { "type": "boolean", "optional": true }, "payload": null }'),
    Schema.OPTIONAL_BOOLEAN_SCHEMA,
    null,
  );
  assertSchemaAndValue(
    read('{ "schema": { "type": "boolean", "default": true }, "payload": null }'),
    SchemaBuilder.bool().defaultValue(true).build(),
    true,
  );
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "boolean", "optional": false, "name": "bool", "version": 2, "doc": "the documentation", "parameters": { "foo": "bar" }}, "payload": true }',
    ),
    SchemaBuilder.bool().required().name("bool").version(2).doc("the documentation").parameter("foo", "bar")
      .build(),
    true,
  );
});

Deno.test("JsonConverter reads every primitive type", () => {
  assertSchemaAndValue(
    read('{ "schema": { "type": "boolean" }, "payload": false }'),
    Schema.BOOLEAN_SCHEMA,
    false,
  );
  assertSchemaAndValue(read('{ "schema": { "type": "int8" }, "payload": 12 }'), Schema.INT8_SCHEMA, 12);
  assertSchemaAndValue(read('{ "schema": { "type": "int16" }, "payload": 12 }'), Schema.INT16_SCHEMA, 12);
  assertSchemaAndValue(read('{ "schema": { "type": "int32" }, "payload": 12 }'), Schema.INT32_SCHEMA, 12);
  assertSchemaAndValue(
    read('{ "schema": { "type": "int64" }, "payload": 4398046511104 }'),
    Schema.INT64_SCHEMA,
    4398046511104,
  );
  const big = read('{ "schema": { "type": "int64" }, "payload": 9223372036854775807 }');
  assertEquals(big.value, 9223372036854775807n);
  assertSchemaAndValue(
    read('{ "schema": { "type": "float" }, "payload": 12.34 }'),
    Schema.FLOAT32_SCHEMA,
    Math.fround(12.34),
  );
  assertSchemaAndValue(
    read('{ "schema": { "type": "double" }, "payload": 12.34 }'),
    Schema.FLOAT64_SCHEMA,
    12.34,
  );
  assertSchemaAndValue(
    read('{ "schema": { "type": "bytes" }, "payload": "dGVzdC1zdHJpbmc=" }'),
    Schema.BYTES_SCHEMA,
    bytes("test-string"),
  );
  assertSchemaAndValue(
    read('{ "schema": { "type": "string" }, "payload": "foo-bar-baz" }'),
    Schema.STRING_SCHEMA,
    "foo-bar-baz",
  );
});

Deno.test("JsonConverter narrows numbers as Java does", () => {
  assertEquals(read('{ "schema": { "type": "int32" }, "payload": 12.9 }').value, 12);
  assertEquals(read('{ "schema": { "type": "int8" }, "payload": 300 }').value, 44);
  assertEquals(read('{ "schema": { "type": "int32" }, "payload": -1.5e1 }').value, -15);
});

Deno.test("JsonConverter reads arrays, maps and structs", () => {
  assertSchemaAndValue(
    read('{ "schema": { "type": "array", "items": { "type" : "int32" } }, "payload": [1, 2, 3] }'),
    SchemaBuilder.array(Schema.INT32_SCHEMA).build(),
    [1, 2, 3],
  );
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "map", "keys": { "type" : "string" }, "values": { "type" : "int32" } }, "payload": { "key1": 12, "key2": 15} }',
    ),
    SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
    new Map([["key1", 12], ["key2", 15]]),
  );
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "map", "keys": { "type" : "int32" }, "values": { "type" : "int32" } }, "payload": [ [1, 12], [2, 15] ] }',
    ),
    SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT32_SCHEMA).build(),
    new Map([[1, 12], [2, 15]]),
  );
  const structSchema = SchemaBuilder.struct().field("field1", Schema.BOOLEAN_SCHEMA).field(
    "field2",
    Schema.STRING_SCHEMA,
  )
    .build();
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "struct", "fields": [{ "field": "field1", "type": "boolean" }, { "field": "field2", "type": "string" }] }, "payload": { "field1": true, "field2": "string" } }',
    ),
    structSchema,
    new Struct(structSchema).put("field1", true).put("field2", "string"),
  );
  const optionalSchema = SchemaBuilder.struct().field("optional", Schema.OPTIONAL_STRING_SCHEMA)
    .field("required", Schema.STRING_SCHEMA).build();
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "struct", "fields": [{ "field":"optional", "type": "string", "optional": true }, {  "field": "required", "type": "string" }] }, "payload": { "required": "required" } }',
    ),
    optionalSchema,
    new Struct(optionalSchema).put("required", "required"),
  );
});

Deno.test("JsonConverter reads nulls and schemaless payloads", () => {
  assertEquals(jsonConverter().toConnectData(TOPIC, null), NULL_SCHEMA_AND_VALUE);
  assertEquals(read("", { "schemas.enable": "false" }), NULL_SCHEMA_AND_VALUE);
  assertSchemaAndValue(
    read('{ "a": "", "b": null}', { "schemas.enable": "false" }),
    null,
    new Map([["a", ""], ["b", null]]),
  );
  assertEquals(read('{ "schema": null, "payload": null }'), NULL_SCHEMA_AND_VALUE);
  assertSchemaAndValue(read('{ "schema": null, "payload": true }'), null, true);
  assertSchemaAndValue(read('{ "schema": null, "payload": 12 }'), null, 12);
  assertSchemaAndValue(read('{ "schema": null, "payload": 12.24 }'), null, 12.24);
  assertSchemaAndValue(read('{ "schema": null, "payload": "a string" }'), null, "a string");
  assertSchemaAndValue(read('{ "schema": null, "payload": [1, "2", 3] }'), null, [1, "2", 3]);
  assertSchemaAndValue(
    read('{ "schema": null, "payload": { "field1": 1, "field2": 2} }'),
    null,
    new Map([["field1", 1], ["field2", 2]]),
  );
  assertSchemaAndValue(read("true", { "schemas.enable": "false" }), null, true);
  assertEquals(
    read("12345678901234567890", { "schemas.enable": "false" }).value,
    12345678901234567890n - 2n ** 64n,
  );
});

Deno.test("JsonConverter reads Decimal from base64 and numeric payloads, exactly", () => {
  const reference = new BigDecimal(156n, 2);
  const base64 = read(
    '{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":"AJw="}',
  );
  assertSchemaAndValue(base64, ConnectDecimal.schema(2), reference);
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "2" } }, "payload": 1.56 }',
    ),
    ConnectDecimal.schema(2),
    reference,
  );
  const trailing = read(
    '{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "4" } }, "payload": 1.5600 }',
  );
  assert((trailing.value as BigDecimal).equals(new BigDecimal(15600n, 4)));
  const precise = read(
    '{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "17" } }, "payload": 1.23456789123456789 }',
  );
  assertEquals((precise.value as BigDecimal).toString(), "1.23456789123456789");
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "optional": true, "parameters": { "scale": "2" } }, "payload": null }',
    ),
    ConnectDecimal.builder(2).optional().build(),
    null,
  );
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "default": "AJw=", "parameters": { "scale": "2" } }, "payload": null }',
    ),
    ConnectDecimal.builder(2).defaultValue(reference).build(),
    reference,
  );
  assertThrows(
    () =>
      read(
        '{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":"***"}',
      ),
    Error,
    "Invalid bytes for Decimal field",
  );
});

Deno.test("JsonConverter reads Date, Time and Timestamp, with defaults", () => {
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1 }, "payload": 10000 }',
    ),
    ConnectDate.SCHEMA,
    new Date(10000 * 86400000),
  );
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1, "optional": true, "default": 0 }, "payload": null }',
    ),
    ConnectDate.builder().optional().defaultValue(new Date(0)).build(),
    new Date(0),
  );
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1 }, "payload": 14400000 }',
    ),
    ConnectTime.SCHEMA,
    new Date(14400000),
  );
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1 }, "payload": 4000000000 }',
    ),
    ConnectTimestamp.SCHEMA,
    new Date(4000000000),
  );
  assertSchemaAndValue(
    read(
      '{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1,  "optional": true, "default": 42 }, "payload": null }',
    ),
    ConnectTimestamp.builder().optional().defaultValue(new Date(42)).build(),
    new Date(42),
  );
  assertThrows(
    () =>
      read(
        '{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1 }, "payload": "x" }',
      ),
    Error,
    "Invalid type for Date, underlying representation should be integer but was STRING",
  );
});

Deno.test("JsonConverter honours replace.null.with.default when reading", () => {
  const json = '{ "schema": { "type": "int32", "optional": true, "default": 5 }, "payload": null }';
  assertEquals(read(json).value, 5);
  assertEquals(read(json, { "replace.null.with.default": "false" }).value, null);
});

Deno.test("JsonConverter reports Kafka's errors", () => {
  const envelopeMessage =
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not ' +
    "contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in " +
    "your converter configuration.";
  assertThrows(() => read('{"sys_id":"abc"}'), DataException, envelopeMessage);
  assertThrows(() => read('{"schema":null,"payload":1,"extra":2}'), Error, envelopeMessage);
  assertThrows(() => read("[1]"), Error, envelopeMessage);
  assertThrows(() => read(""), Error, envelopeMessage);
  assertThrows(
    () => read("{not json"),
    DataException,
    /^Converting byte\[\] to Kafka Connect data failed due to serialization error: /,
  );
  assertThrows(
    () => read('{"schema":{"optional":true},"payload":1}'),
    Error,
    "Schema must contain 'type' field",
  );
  assertThrows(() => read('{"schema":{"type":"foo"},"payload":1}'), Error, "Unknown schema type: foo");
  assertThrows(
    () => read('{"schema":{"type":"array"},"payload":[]}'),
    Error,
    "Array schema did not specify the element type",
  );
  assertThrows(
    () => read('{"schema":{"type":"map","values":{"type":"int8"}},"payload":{}}'),
    Error,
    "Map schema did not specify the key type",
  );
  assertThrows(
    () => read('{"schema":{"type":"struct","fields":{}},"payload":{}}'),
    Error,
    `Struct schema's "fields" argument is not an array.`,
  );
  assertThrows(
    () => read('{"schema":{"type":"struct","fields":[{"type":"int8"}]},"payload":{}}'),
    Error,
    "Struct schema's field name not specified properly",
  );
  assertThrows(
    () => read('{"schema":{"type":"int8","parameters":{"a":1}},"payload":1}'),
    Error,
    "Schema parameters must have string values.",
  );
  assertThrows(
    () => read('{"schema":{"type":"int32"},"payload":null}'),
    Error,
    "Invalid null value for required INT32 field",
  );
  assertThrows(
    () => read('{"schema":{"type":"struct","fields":[]},"payload":[]}'),
    Error,
    "Structs should be encoded as JSON objects, but found ARRAY",
  );
  assertThrows(
    () => read('{"schema":{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}},"payload":[[1]]}'),
    Error,
    "Found invalid map entry, expected length 2 but found :1",
  );
  assertThrows(
    () => read('{"schema":{"type":"int32"},"payload":"12"}'),
    Error,
    "Invalid value for INT32 field: expected a JSON number but found STRING",
  );
  assertThrows(
    () => jsonConverter({ "schemas.enable": "yes" }),
    ConfigException,
    "Invalid value yes for configuration schemas.enable: Expected value to be either true or false",
  );
  assertThrows(
    () => jsonConverter({ "decimal.format": "HEX" }),
    Error,
    "Invalid value HEX for configuration decimal.format: String must be one of (case insensitive): BASE64, NUMERIC",
  );
});

Deno.test("JsonConverter round-trips nested data with and without schemas", () => {
  const address = SchemaBuilder.struct().name("address").field("city", Schema.STRING_SCHEMA)
    .field("zip", Schema.OPTIONAL_STRING_SCHEMA).build();
  const schema = SchemaBuilder.struct().name("row").version(3)
    .field("id", Schema.INT64_SCHEMA)
    .field("price", ConnectDecimal.builder(2).optional().build())
    .field("born", ConnectDate.builder().optional().build())
    .field("at", ConnectTime.builder().optional().build())
    .field("updated", ConnectTimestamp.builder().optional().build())
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
    .field("scores", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT64_SCHEMA).optional().build())
    .field("byId", SchemaBuilder.map(Schema.INT64_SCHEMA, address).optional().build())
    .field("home", address)
    .field("raw", Schema.OPTIONAL_BYTES_SCHEMA)
    .field("ratio", Schema.OPTIONAL_FLOAT32_SCHEMA)
    .build();
  const home = new Struct(address).put("city", "Zürich");
  const value = new Struct(schema)
    .put("id", 9007199254740993n)
    .put("price", new BigDecimal(-12345n, 2))
    .put("born", new Date(Date.UTC(2024, 9, 1)))
    .put("at", new Date(3723004))
    .put("updated", new Date(1727784000123))
    .put("tags", ["a", "b"])
    .put("scores", new Map([["x", 1.5]]))
    .put("byId", new Map([[7, new Struct(address).put("city", "Basel").put("zip", "4000")]]))
    .put("home", home)
    .put("raw", new Uint8Array([0, 255, 128]))
    .put("ratio", Math.fround(0.25));
  for (const format of ["BASE64", "NUMERIC"]) {
    const c = jsonConverter({ "decimal.format": format });
    const back = c.toConnectData(TOPIC, c.fromConnectData(TOPIC, schema, value));
    assertSchemaAndValue(back, schema, value);
  }
  const schemaless = jsonConverter({ "schemas.enable": "false" });
  const map = new Map<string, unknown>([["a", 1], ["b", [true, null, "x"]], ["c", new Map([["d", 2.5]])]]);
  assert(
    valuesEqual(schemaless.toConnectData(TOPIC, schemaless.fromConnectData(TOPIC, null, map)).value, map),
  );
});

Deno.test("JsonConverter caches read schemas by their JSON text", () => {
  const c = jsonConverter();
  const first = c.toConnectData(TOPIC, bytes('{"schema":{"type":"string"},"payload":"a"}'));
  const second = c.toConnectData(TOPIC, bytes('{"schema":{"type":"string"},"payload":"b"}'));
  assertStrictEquals(first.schema, second.schema);
  assertEquals(second.value, "b");
});
