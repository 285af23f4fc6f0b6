/**
 * JsonConverter output, byte for byte, on the fixed examples of Kafka's JsonConverterTest and documentation.
 * Kafka always writes `"optional"` right after the type-specific keys, so expected strings include it.
 */
import { assertEquals, assertThrows } from "../support/assert.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../src/connect/logical.ts";
import { DataException } from "../../src/connect/errors.ts";
import { bytes, jsonConverter, text, TOPIC } from "./helpers.ts";

function write(schema: Schema | null, value: unknown, configs: Record<string, string> = {}): string | null {
  return text(jsonConverter(configs).fromConnectData(TOPIC, schema, value));
}

Deno.test("JsonConverter writes primitive envelopes exactly as Kafka", () => {
  assertEquals(
    write(Schema.BOOLEAN_SCHEMA, true),
    '{"schema":{"type":"boolean","optional":false},"payload":true}',
  );
  assertEquals(write(Schema.INT8_SCHEMA, 12), '{"schema":{"type":"int8","optional":false},"payload":12}');
  assertEquals(write(Schema.INT16_SCHEMA, 12), '{"schema":{"type":"int16","optional":false},"payload":12}');
  assertEquals(write(Schema.INT32_SCHEMA, 12), '{"schema":{"type":"int32","optional":false},"payload":12}');
  assertEquals(
    write(Schema.INT64_SCHEMA, 4398046511104),
    '{"schema":{"type":"int64","optional":false},"payload":4398046511104}',
  );
  assertEquals(
    write(Schema.FLOAT32_SCHEMA, 12.34),
    '{"schema":{"type":"float","optional":false},"payload":12.34}',
  );
  assertEquals(
    write(Schema.FLOAT64_SCHEMA, 12.34),
    '{"schema":{"type":"double","optional":false},"payload":12.34}',
  );
  assertEquals(
    write(Schema.BYTES_SCHEMA, bytes("test-string")),
    '{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}',
  );
  assertEquals(
    write(Schema.STRING_SCHEMA, "test-string"),
    '{"schema":{"type":"string","optional":false},"payload":"test-string"}',
  );
});

Deno.test("JsonConverter writes full 64-bit integers exactly", () => {
  assertEquals(
    write(Schema.INT64_SCHEMA, 9223372036854775807n),
    '{"schema":{"type":"int64","optional":false},"payload":9223372036854775807}',
  );
  assertEquals(
    write(Schema.INT64_SCHEMA, -9223372036854775808n),
    '{"schema":{"type":"int64","optional":false},"payload":-9223372036854775808}',
  );
  assertThrows(() => write(Schema.INT64_SCHEMA, 2n ** 63n), DataException);
  assertThrows(() => write(Schema.INT64_SCHEMA, 2 ** 60), Error, /Invalid type for INT64/);
});

Deno.test("JsonConverter prints doubles and floats as Jackson prints Java numbers", () => {
  const payload = (schema: Schema, value: number) => write(schema, value, { "schemas.enable": "false" });
  assertEquals(payload(Schema.FLOAT64_SCHEMA, 1), "1.0");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, 100), "100.0");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, 0.1 + 0.2), "0.30000000000000004");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, 1e7), "1.0E7");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, 123456789), "1.23456789E8");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, 0.001), "0.001");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, 0.0001), "1.0E-4");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, -2.5e-10), "-2.5E-10");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, Number.MAX_VALUE), "1.7976931348623157E308");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, Number.MIN_VALUE), "4.9E-324");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, -0), "-0.0");
  assertEquals(payload(Schema.FLOAT64_SCHEMA, NaN), '"NaN"');
  assertEquals(payload(Schema.FLOAT64_SCHEMA, -Infinity), '"-Infinity"');
  assertEquals(payload(Schema.FLOAT32_SCHEMA, 0.1), "0.1");
  assertEquals(payload(Schema.FLOAT32_SCHEMA, 1), "1.0");
  assertEquals(payload(Schema.FLOAT32_SCHEMA, 3.14159), "3.14159");
  assertEquals(payload(Schema.FLOAT32_SCHEMA, 16777216), "1.6777216E7");
  assertEquals(payload(Schema.FLOAT32_SCHEMA, 3.4028235e38), "3.4028235E38");
  assertEquals(payload(Schema.FLOAT32_SCHEMA, 1e-5), "1.0E-5");
  assertEquals(payload(Schema.FLOAT32_SCHEMA, 1.4e-45), "1.4E-45");
});

Deno.test("JsonConverter writes arrays, maps with string and non-string keys, and structs", () => {
  assertEquals(
    write(SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 2, 3]),
    '{"schema":{"type":"array","items":{"type":"int32","optional":false},"optional":false},"payload":[1,2,3]}',
  );
  assertEquals(
    write(
      SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
      new Map([["key1", 12], ["key2", 15]]),
    ),
    '{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},' +
      '"optional":false},"payload":{"key1":12,"key2":15}}',
  );
  assertEquals(
    write(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(), { key1: 12, key2: 15 }),
    '{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},' +
      '"optional":false},"payload":{"key1":12,"key2":15}}',
  );
  assertEquals(
    write(SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT32_SCHEMA).build(), new Map([[1, 12], [2, 15]])),
    '{"schema":{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},' +
      '"optional":false},"payload":[[1,12],[2,15]]}',
  );
  const schema = SchemaBuilder.struct().field("field1", Schema.BOOLEAN_SCHEMA).field(
    "field2",
    Schema.STRING_SCHEMA,
  )
    .field("field3", Schema.STRING_SCHEMA).field("field4", Schema.BOOLEAN_SCHEMA).build();
  const input = new Struct(schema).put("field1", true).put("field2", "string2").put("field3", "string3")
    .put("field4", false);
  assertEquals(
    write(schema, input),
    '{"schema":{"type":"struct","fields":[{"type":"boolean","optional":false,"field":"field1"},' +
      '{"type":"string","optional":false,"field":"field2"},{"type":"string","optional":false,"field":"field3"},' +
      '{"type":"boolean","optional":false,"field":"field4"}],"optional":false},' +
      '"payload":{"field1":true,"field2":"string2","field3":"string3","field4":false}}',
  );
});

Deno.test("JsonConverter writes nested structs and optional null fields", () => {
  const inner = SchemaBuilder.struct().name("inner").field("n", Schema.OPTIONAL_INT32_SCHEMA).optional()
    .build();
  const outer = SchemaBuilder.struct().name("outer").version(2).field("id", Schema.STRING_SCHEMA)
    .field("inner", inner).build();
  const value = new Struct(outer).put("id", "a").put("inner", new Struct(inner).put("n", 7));
  assertEquals(
    write(outer, value),
    '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"},' +
      '{"type":"struct","fields":[{"type":"int32","optional":true,"field":"n"}],"optional":true,"name":"inner",' +
      '"field":"inner"}],"optional":false,"name":"outer","version":2},"payload":{"id":"a","inner":{"n":7}}}',
  );
  const withNulls = new Struct(outer).put("id", "b");
  assertEquals(write(outer, withNulls, { "schemas.enable": "false" }), '{"id":"b","inner":null}');
});

Deno.test("JsonConverter writes schema metadata in Kafka's key order", () => {
  const schema = SchemaBuilder.bool().required().name("bool").version(3).doc("the documentation")
    .parameter("foo", "bar").build();
  assertEquals(
    write(schema, true),
    '{"schema":{"type":"boolean","optional":false,"name":"bool","version":3,"doc":"the documentation",' +
      '"parameters":{"foo":"bar"}},"payload":true}',
  );
  assertEquals(
    write(SchemaBuilder.bool().defaultValue(true).build(), true),
    '{"schema":{"type":"boolean","optional":false,"default":true},"payload":true}',
  );
  assertEquals(
    write(Schema.OPTIONAL_BOOLEAN_SCHEMA, null),
    '{"schema":{"type":"boolean","optional":true},"payload":null}',
  );
});

Deno.test("JsonConverter applies replace.null.with.default", () => {
  const schema = SchemaBuilder.int32().optional().defaultValue(42).build();
  assertEquals(write(schema, null), '{"schema":{"type":"int32","optional":true,"default":42},"payload":42}');
  assertEquals(
    write(schema, null, { "replace.null.with.default": "false" }),
    '{"schema":{"type":"int32","optional":true,"default":42},"payload":null}',
  );
  const struct = SchemaBuilder.struct().field("f", schema).build();
  assertEquals(write(struct, new Struct(struct), { "schemas.enable": "false" }), '{"f":42}');
  assertEquals(
    write(struct, new Struct(struct), { "schemas.enable": "false", "replace.null.with.default": "false" }),
    '{"f":null}',
  );
  assertThrows(
    () => write(Schema.INT32_SCHEMA, null),
    DataException,
    "Conversion error: null value for field that is required and has no default value",
  );
});

Deno.test("JsonConverter writes Decimal as base64 (default) or NUMERIC", () => {
  const value = new BigDecimal(156n, 2);
  assertEquals(
    write(ConnectDecimal.schema(2), value),
    '{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,' +
      '"parameters":{"scale":"2"}},"payload":"AJw="}',
  );
  assertEquals(
    write(ConnectDecimal.schema(2), value, { "decimal.format": "numeric" }),
    '{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,' +
      '"parameters":{"scale":"2"}},"payload":1.56}',
  );
  assertEquals(
    write(ConnectDecimal.schema(4), new BigDecimal(15600n, 4), {
      "decimal.format": "NUMERIC",
      "schemas.enable": "false",
    }),
    "1.5600",
  );
  assertEquals(
    write(ConnectDecimal.schema(2), new BigDecimal(-156n, 2), { "schemas.enable": "false" }),
    '"/2Q="',
  );
  assertThrows(
    () => write(ConnectDecimal.schema(3), value),
    Error,
    /Decimal value has mismatching scale for given Decimal schema. Schema has scale 3, value has scale 2./,
  );
  assertThrows(
    () => write(ConnectDecimal.schema(2), 1.56),
    Error,
    /Invalid type for Decimal, expected BigDecimal/,
  );
});

Deno.test("JsonConverter writes Date, Time and Timestamp", () => {
  assertEquals(
    write(ConnectDate.SCHEMA, new Date(10000 * 86400000)),
    '{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},"payload":10000}',
  );
  assertEquals(
    write(ConnectTime.SCHEMA, new Date(14400000)),
    '{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1},"payload":14400000}',
  );
  assertEquals(
    write(ConnectTimestamp.SCHEMA, new Date(4000000000)),
    '{"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},' +
      '"payload":4000000000}',
  );
  assertEquals(
    write(ConnectTimestamp.builder().optional().defaultValue(new Date(42)).build(), null),
    '{"schema":{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"default":42},' +
      '"payload":42}',
  );
  assertThrows(() => write(ConnectDate.SCHEMA, new Date(1000)), Error, /should not have any time fields/);
});

Deno.test("JsonConverter writes the reference's record-table example byte for byte", () => {
  const schema = SchemaBuilder.struct().name("servicenow.incident")
    .field("sys_id", Schema.STRING_SCHEMA)
    .field("sys_updated_on", ConnectTimestamp.builder().optional().build())
    .build();
  const value = new Struct(schema).put("sys_id", "46d4...").put("sys_updated_on", new Date(1727784000000));
  assertEquals(
    write(schema, value),
    '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"sys_id"},' +
      '{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,' +
      '"field":"sys_updated_on"}],"optional":false,"name":"servicenow.incident"},' +
      '"payload":{"sys_id":"46d4...","sys_updated_on":1727784000000}}',
  );
});

Deno.test("JsonConverter without a schema writes values by their JS type", () => {
  assertEquals(write(null, null), null);
  assertEquals(write(null, true), '{"schema":null,"payload":true}');
  assertEquals(write(null, [1, "string", true]), '{"schema":null,"payload":[1,"string",true]}');
  assertEquals(
    write(null, { key1: 12, key2: "string", key3: true }),
    '{"schema":null,"payload":{"key1":12,"key2":"string","key3":true}}',
  );
  assertEquals(
    write(null, new Map<unknown, unknown>([["string", 12], [52, "string"], [false, true]])),
    '{"schema":null,"payload":[["string",12],[52,"string"],[false,true]]}',
  );
  assertEquals(write(null, 1.5, { "schemas.enable": "false" }), "1.5");
  assertEquals(write(null, 2n ** 62n, { "schemas.enable": "false" }), "4611686018427387904");
  assertEquals(
    write(null, ["offsets", { table: "incident" }], { "schemas.enable": "false" }),
    '["offsets",{"table":"incident"}]',
  );
  assertThrows(() => write(null, new Date(0)), DataException);
});

Deno.test("JsonConverter escapes strings as Jackson does; characters beyond the BMP as escaped surrogates", () => {
  // Connect's JsonConverter writes 😀 as \uD83D\uDE00 (found by tests/conformance against Connect's own classes).
  assertEquals(
    write(Schema.STRING_SCHEMA, 'quote" back\\ nl\n tab\t bell\u0007 del\u007f é 😀', {
      "schemas.enable": "false",
    }),
    '"quote\\" back\\\\ nl\\n tab\\t bell\\u0007 del\u007f é \\uD83D\\uDE00"',
  );
  assertEquals(write(Schema.STRING_SCHEMA, "lone \ud800", { "schemas.enable": "false" }), '"lone \\uD800"');
  assertEquals(write(Schema.STRING_SCHEMA, "\u001f", { "schemas.enable": "false" }), '"\\u001F"');
});

Deno.test("JsonConverter rejects values that do not fit the schema", () => {
  assertThrows(() => write(Schema.FLOAT64_SCHEMA, true), DataException, "Invalid type for FLOAT64: boolean");
  assertThrows(() => write(Schema.INT8_SCHEMA, 300), Error, /Invalid type for INT8/);
  const a = SchemaBuilder.struct().field("x", Schema.INT32_SCHEMA).build();
  const b = SchemaBuilder.struct().field("y", Schema.INT32_SCHEMA).build();
  assertThrows(() => write(a, new Struct(b).put("y", 1)), Error, "Mismatching schema.");
});

Deno.test("JsonConverter as a header converter writes the same envelope", () => {
  const c = jsonConverter();
  assertEquals(
    text(c.fromConnectHeader(TOPIC, "headerName", Schema.STRING_SCHEMA, "test-string")),
    '{"schema":{"type":"string","optional":false},"payload":"test-string"}',
  );
});
