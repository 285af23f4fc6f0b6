/**
 * JsonConverter output, byte for byte, on the fixed examples of Kafka's JsonConverterTest and documentation.
 * Kafka always writes `"optional"` right after the type-specific keys, so expected strings include it.
 */
import assert from "node:assert/strict";
import { JsonConverter } from "../../src/connect/converters/json/json_converter.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../src/connect/logical.ts";
import { DataException } from "../../src/connect/errors.ts";
import { bytes, text, TOPIC } from "./helpers.ts";

function converter(configs: Record<string, string> = {}): JsonConverter {
  const c = new JsonConverter();
  c.configure(configs, false);
  return c;
}

function write(schema: Schema | null, value: unknown, configs: Record<string, string> = {}): string | null {
  return text(converter(configs).fromConnectData(TOPIC, schema, value));
}

Deno.test("JsonConverter writes primitive envelopes exactly as Kafka", () => {
  assert.equal(
    write(Schema.BOOLEAN_SCHEMA, true),
    '{"schema":{"type":"boolean","optional":false},"payload":true}',
  );
  assert.equal(write(Schema.INT8_SCHEMA, 12), '{"schema":{"type":"int8","optional":false},"payload":12}');
  assert.equal(write(Schema.INT16_SCHEMA, 12), '{"schema":{"type":"int16","optional":false},"payload":12}');
  assert.equal(write(Schema.INT32_SCHEMA, 12), '{"schema":{"type":"int32","optional":false},"payload":12}');
  assert.equal(
    write(Schema.INT64_SCHEMA, 4398046511104),
    '{"schema":{"type":"int64","optional":false},"payload":4398046511104}',
  );
  assert.equal(
    write(Schema.FLOAT32_SCHEMA, 12.34),
    '{"schema":{"type":"float","optional":false},"payload":12.34}',
  );
  assert.equal(
    write(Schema.FLOAT64_SCHEMA, 12.34),
    '{"schema":{"type":"double","optional":false},"payload":12.34}',
  );
  assert.equal(
    write(Schema.BYTES_SCHEMA, bytes("test-string")),
    '{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}',
  );
  assert.equal(
    write(Schema.STRING_SCHEMA, "test-string"),
    '{"schema":{"type":"string","optional":false},"payload":"test-string"}',
  );
});

Deno.test("JsonConverter writes full 64-bit integers exactly", () => {
  assert.equal(
    write(Schema.INT64_SCHEMA, 9223372036854775807n),
    '{"schema":{"type":"int64","optional":false},"payload":9223372036854775807}',
  );
  assert.equal(
    write(Schema.INT64_SCHEMA, -9223372036854775808n),
    '{"schema":{"type":"int64","optional":false},"payload":-9223372036854775808}',
  );
  assert.throws(() => write(Schema.INT64_SCHEMA, 2n ** 63n), DataException);
  assert.throws(() => write(Schema.INT64_SCHEMA, 2 ** 60), /Invalid type for INT64/);
});

Deno.test("JsonConverter prints doubles and floats as Jackson prints Java numbers", () => {
  const payload = (schema: Schema, value: number) => write(schema, value, { "schemas.enable": "false" });
  assert.equal(payload(Schema.FLOAT64_SCHEMA, 1), "1.0");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, 100), "100.0");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, 0.1 + 0.2), "0.30000000000000004");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, 1e7), "1.0E7");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, 123456789), "1.23456789E8");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, 0.001), "0.001");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, 0.0001), "1.0E-4");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, -2.5e-10), "-2.5E-10");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, Number.MAX_VALUE), "1.7976931348623157E308");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, Number.MIN_VALUE), "4.9E-324");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, -0), "-0.0");
  assert.equal(payload(Schema.FLOAT64_SCHEMA, NaN), '"NaN"');
  assert.equal(payload(Schema.FLOAT64_SCHEMA, -Infinity), '"-Infinity"');
  assert.equal(payload(Schema.FLOAT32_SCHEMA, 0.1), "0.1");
  assert.equal(payload(Schema.FLOAT32_SCHEMA, 1), "1.0");
  assert.equal(payload(Schema.FLOAT32_SCHEMA, 3.14159), "3.14159");
  assert.equal(payload(Schema.FLOAT32_SCHEMA, 16777216), "1.6777216E7");
  assert.equal(payload(Schema.FLOAT32_SCHEMA, 3.4028235e38), "3.4028235E38");
  assert.equal(payload(Schema.FLOAT32_SCHEMA, 1e-5), "1.0E-5");
  assert.equal(payload(Schema.FLOAT32_SCHEMA, 1.4e-45), "1.4E-45");
});

Deno.test("JsonConverter writes arrays, maps with string and non-string keys, and structs", () => {
  assert.equal(
    write(SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 2, 3]),
    '{"schema":{"type":"array","items":{"type":"int32","optional":false},"optional":false},"payload":[1,2,3]}',
  );
  assert.equal(
    write(
      SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
      new Map([["key1", 12], ["key2", 15]]),
    ),
    '{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},' +
      '"optional":false},"payload":{"key1":12,"key2":15}}',
  );
  assert.equal(
    write(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(), { key1: 12, key2: 15 }),
    '{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},' +
      '"optional":false},"payload":{"key1":12,"key2":15}}',
  );
  assert.equal(
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
  assert.equal(
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
  assert.equal(
    write(outer, value),
    '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"},' +
      '{"type":"struct","fields":[{"type":"int32","optional":true,"field":"n"}],"optional":true,"name":"inner",' +
      '"field":"inner"}],"optional":false,"name":"outer","version":2},"payload":{"id":"a","inner":{"n":7}}}',
  );
  const withNulls = new Struct(outer).put("id", "b");
  assert.equal(write(outer, withNulls, { "schemas.enable": "false" }), '{"id":"b","inner":null}');
});

Deno.test("JsonConverter writes schema metadata in Kafka's key order", () => {
  const schema = SchemaBuilder.bool().required().name("bool").version(3).doc("the documentation")
    .parameter("foo", "bar").build();
  assert.equal(
    write(schema, true),
    '{"schema":{"type":"boolean","optional":false,"name":"bool","version":3,"doc":"the documentation",' +
      '"parameters":{"foo":"bar"}},"payload":true}',
  );
  assert.equal(
    write(SchemaBuilder.bool().defaultValue(true).build(), true),
    '{"schema":{"type":"boolean","optional":false,"default":true},"payload":true}',
  );
  assert.equal(
    write(Schema.OPTIONAL_BOOLEAN_SCHEMA, null),
    '{"schema":{"type":"boolean","optional":true},"payload":null}',
  );
});

Deno.test("JsonConverter applies replace.null.with.default", () => {
  const schema = SchemaBuilder.int32().optional().defaultValue(42).build();
  assert.equal(write(schema, null), '{"schema":{"type":"int32","optional":true,"default":42},"payload":42}');
  assert.equal(
    write(schema, null, { "replace.null.with.default": "false" }),
    '{"schema":{"type":"int32","optional":true,"default":42},"payload":null}',
  );
  const struct = SchemaBuilder.struct().field("f", schema).build();
  assert.equal(write(struct, new Struct(struct), { "schemas.enable": "false" }), '{"f":42}');
  assert.equal(
    write(struct, new Struct(struct), { "schemas.enable": "false", "replace.null.with.default": "false" }),
    '{"f":null}',
  );
  assert.throws(
    () => write(Schema.INT32_SCHEMA, null),
    {
      name: "DataException",
      message: "Conversion error: null value for field that is required and has no default value",
    },
  );
});

Deno.test("JsonConverter writes Decimal as base64 (default) or NUMERIC", () => {
  const value = new BigDecimal(156n, 2);
  assert.equal(
    write(ConnectDecimal.schema(2), value),
    '{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,' +
      '"parameters":{"scale":"2"}},"payload":"AJw="}',
  );
  assert.equal(
    write(ConnectDecimal.schema(2), value, { "decimal.format": "numeric" }),
    '{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,' +
      '"parameters":{"scale":"2"}},"payload":1.56}',
  );
  assert.equal(
    write(ConnectDecimal.schema(4), new BigDecimal(15600n, 4), {
      "decimal.format": "NUMERIC",
      "schemas.enable": "false",
    }),
    "1.5600",
  );
  assert.equal(
    write(ConnectDecimal.schema(2), new BigDecimal(-156n, 2), { "schemas.enable": "false" }),
    '"/2Q="',
  );
  assert.throws(
    () => write(ConnectDecimal.schema(3), value),
    /Decimal value has mismatching scale for given Decimal schema. Schema has scale 3, value has scale 2./,
  );
  assert.throws(() => write(ConnectDecimal.schema(2), 1.56), /Invalid type for Decimal, expected BigDecimal/);
});

Deno.test("JsonConverter writes Date, Time and Timestamp", () => {
  assert.equal(
    write(ConnectDate.SCHEMA, new Date(10000 * 86400000)),
    '{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},"payload":10000}',
  );
  assert.equal(
    write(ConnectTime.SCHEMA, new Date(14400000)),
    '{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1},"payload":14400000}',
  );
  assert.equal(
    write(ConnectTimestamp.SCHEMA, new Date(4000000000)),
    '{"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},' +
      '"payload":4000000000}',
  );
  assert.equal(
    write(ConnectTimestamp.builder().optional().defaultValue(new Date(42)).build(), null),
    '{"schema":{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"default":42},' +
      '"payload":42}',
  );
  assert.throws(() => write(ConnectDate.SCHEMA, new Date(1000)), /should not have any time fields/);
});

Deno.test("JsonConverter writes the reference's record-table example byte for byte", () => {
  const schema = SchemaBuilder.struct().name("servicenow.incident")
    .field("sys_id", Schema.STRING_SCHEMA)
    .field("sys_updated_on", ConnectTimestamp.builder().optional().build())
    .build();
  const value = new Struct(schema).put("sys_id", "46d4...").put("sys_updated_on", new Date(1727784000000));
  assert.equal(
    write(schema, value),
    '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"sys_id"},' +
      '{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,' +
      '"field":"sys_updated_on"}],"optional":false,"name":"servicenow.incident"},' +
      '"payload":{"sys_id":"46d4...","sys_updated_on":1727784000000}}',
  );
});

Deno.test("JsonConverter without a schema writes values by their JS type", () => {
  assert.equal(write(null, null), null);
  assert.equal(write(null, true), '{"schema":null,"payload":true}');
  assert.equal(write(null, [1, "string", true]), '{"schema":null,"payload":[1,"string",true]}');
  assert.equal(
    write(null, { key1: 12, key2: "string", key3: true }),
    '{"schema":null,"payload":{"key1":12,"key2":"string","key3":true}}',
  );
  assert.equal(
    write(null, new Map<unknown, unknown>([["string", 12], [52, "string"], [false, true]])),
    '{"schema":null,"payload":[["string",12],[52,"string"],[false,true]]}',
  );
  assert.equal(write(null, 1.5, { "schemas.enable": "false" }), "1.5");
  assert.equal(write(null, 2n ** 62n, { "schemas.enable": "false" }), "4611686018427387904");
  assert.equal(
    write(null, ["offsets", { table: "incident" }], { "schemas.enable": "false" }),
    '["offsets",{"table":"incident"}]',
  );
  assert.throws(() => write(null, new Date(0)), DataException);
});

Deno.test("JsonConverter escapes strings as Jackson does; characters beyond the BMP as escaped surrogates", () => {
  // Connect's JsonConverter writes 😀 as \uD83D\uDE00 (found by tests/conformance against Connect's own classes).
  assert.equal(
    write(Schema.STRING_SCHEMA, 'quote" back\\ nl\n tab\t bell\u0007 del\u007f é 😀', {
      "schemas.enable": "false",
    }),
    '"quote\\" back\\\\ nl\\n tab\\t bell\\u0007 del\u007f é \\uD83D\\uDE00"',
  );
  assert.equal(write(Schema.STRING_SCHEMA, "lone \ud800", { "schemas.enable": "false" }), '"lone \\uD800"');
  assert.equal(write(Schema.STRING_SCHEMA, "\u001f", { "schemas.enable": "false" }), '"\\u001F"');
});

Deno.test("JsonConverter rejects values that do not fit the schema", () => {
  assert.throws(() => write(Schema.FLOAT64_SCHEMA, true), {
    name: "DataException",
    message: "Invalid type for FLOAT64: boolean",
  });
  assert.throws(() => write(Schema.INT8_SCHEMA, 300), /Invalid type for INT8/);
  const a = SchemaBuilder.struct().field("x", Schema.INT32_SCHEMA).build();
  const b = SchemaBuilder.struct().field("y", Schema.INT32_SCHEMA).build();
  assert.throws(() => write(a, new Struct(b).put("y", 1)), { message: "Mismatching schema." });
});

Deno.test("JsonConverter as a header converter writes the same envelope", () => {
  const c = converter();
  assert.equal(
    text(c.fromConnectHeader(TOPIC, "headerName", Schema.STRING_SCHEMA, "test-string")),
    '{"schema":{"type":"string","optional":false},"payload":"test-string"}',
  );
});
