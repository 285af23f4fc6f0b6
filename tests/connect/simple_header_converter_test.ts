/** SimpleHeaderConverter and Connect's string forms (Values.convertToString / parseString). */
import { assertEquals } from "../support/assert.ts";
import { SimpleHeaderConverter } from "../../src/connect/converters/simple_header_converter.ts";
import { convertToString } from "../../src/connect/value_strings.ts";
import { parseString } from "../../src/connect/value_string_parser.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../src/connect/logical.ts";
import { assertSchemaAndValue, bytes, text, TOPIC } from "./helpers.ts";

const converter = new SimpleHeaderConverter();
converter.configure({});

function roundTrip(schema: Schema | null, value: unknown) {
  const raw = converter.fromConnectHeader(TOPIC, "h", schema, value);
  return converter.toConnectHeader(TOPIC, "h", raw);
}

Deno.test("SimpleHeaderConverter round-trips primitives with the narrowest schema", () => {
  assertSchemaAndValue(roundTrip(null, null), null, null);
  assertSchemaAndValue(roundTrip(Schema.STRING_SCHEMA, "simple"), Schema.STRING_SCHEMA, "simple");
  assertSchemaAndValue(roundTrip(Schema.STRING_SCHEMA, ""), Schema.STRING_SCHEMA, "");
  assertSchemaAndValue(roundTrip(Schema.BOOLEAN_SCHEMA, true), Schema.BOOLEAN_SCHEMA, true);
  assertSchemaAndValue(roundTrip(Schema.INT8_SCHEMA, 12), Schema.INT8_SCHEMA, 12);
  assertSchemaAndValue(roundTrip(Schema.INT16_SCHEMA, 12345), Schema.INT16_SCHEMA, 12345);
  assertSchemaAndValue(roundTrip(Schema.INT32_SCHEMA, 1234567890), Schema.INT32_SCHEMA, 1234567890);
  assertSchemaAndValue(
    roundTrip(Schema.INT64_SCHEMA, 9223372036854775807n),
    Schema.INT64_SCHEMA,
    9223372036854775807n,
  );
  assertSchemaAndValue(roundTrip(Schema.FLOAT32_SCHEMA, 1.5), Schema.FLOAT32_SCHEMA, 1.5);
  assertSchemaAndValue(roundTrip(Schema.FLOAT64_SCHEMA, 1e300), Schema.FLOAT64_SCHEMA, 1e300);
});

Deno.test("SimpleHeaderConverter round-trips strings with quotes and delimiters", () => {
  for (const s of ['three"blind\\"mice', "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':", "true}"]) {
    assertSchemaAndValue(roundTrip(Schema.STRING_SCHEMA, s), Schema.STRING_SCHEMA, s);
  }
});

Deno.test("SimpleHeaderConverter round-trips lists, maps and logical types", () => {
  const strings = SchemaBuilder.array(Schema.STRING_SCHEMA).build();
  assertSchemaAndValue(roundTrip(strings, ["foo", "bar"]), strings, ["foo", "bar"]);
  const ints = SchemaBuilder.array(Schema.INT32_SCHEMA).build();
  assertSchemaAndValue(roundTrip(ints, [1234567890, -987654321]), ints, [1234567890, -987654321]);
  const shorts = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT16_SCHEMA).build();
  const shortMap = new Map([["foo", 12345], ["bar", 0], ["baz", -4321]]);
  assertSchemaAndValue(roundTrip(shorts, shortMap), shorts, shortMap);
  const stringMap = new Map([["foo", "123"], ["bar", "baz"]]);
  assertSchemaAndValue(
    roundTrip(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build(), stringMap),
    SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build(),
    stringMap,
  );
  assertSchemaAndValue(
    roundTrip(ConnectDate.SCHEMA, new Date(Date.UTC(2019, 7, 23))),
    ConnectDate.SCHEMA,
    new Date(Date.UTC(2019, 7, 23)),
  );
  assertSchemaAndValue(
    roundTrip(ConnectTime.SCHEMA, new Date(52494346)),
    ConnectTime.SCHEMA,
    new Date(52494346),
  );
  const ts = new Date(Date.UTC(2019, 7, 23, 14, 34, 54, 346));
  assertSchemaAndValue(roundTrip(ConnectTimestamp.SCHEMA, ts), ConnectTimestamp.SCHEMA, ts);
  const timestamps = SchemaBuilder.array(ConnectTimestamp.SCHEMA).build();
  assertSchemaAndValue(roundTrip(timestamps, [ts, ts]), timestamps, [ts, ts]);
});

Deno.test("SimpleHeaderConverter writes Connect's string forms", () => {
  const write = (schema: Schema | null, value: unknown) =>
    text(converter.fromConnectHeader(TOPIC, "h", schema, value));
  assertEquals(write(Schema.FLOAT64_SCHEMA, 1), "1.0");
  assertEquals(write(null, ["a", 1, null]), '["a",1,null]');
  assertEquals(write(null, { k: 'q"b\\' }), '{"k":"q\\"b\\\\"}');
  assertEquals(write(null, new Uint8Array([1, 2])), "AQI=");
  assertEquals(write(null, new Date(Date.UTC(2019, 7, 23, 14, 34, 54, 346))), "2019-08-23T14:34:54.346Z");
  const schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("b", Schema.STRING_SCHEMA)
    .build();
  assertEquals(write(schema, new Struct(schema).put("a", 1).put("b", "x")), '{"a":1,"b":"x"}');
  assertEquals(write(ConnectDecimal.schema(2), new BigDecimal(156n, 2)), "1.56");
});

Deno.test("parseString infers schemas like Kafka's Values", () => {
  assertSchemaAndValue(parseString("null"), null, null);
  assertSchemaAndValue(parseString("-12"), Schema.INT8_SCHEMA, -12);
  assertSchemaAndValue(parseString("1e5"), Schema.INT32_SCHEMA, 100000);
  assertSchemaAndValue(parseString("0.5"), Schema.FLOAT32_SCHEMA, 0.5);
  assertSchemaAndValue(
    parseString("9223372036854775808"),
    ConnectDecimal.schema(0),
    new BigDecimal(9223372036854775808n, 0),
  );
  assertSchemaAndValue(parseString("[1, 2, 3.5]"), SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build(), [
    1,
    2,
    3.5,
  ]);
  assertSchemaAndValue(parseString("[1, null]"), Schema.STRING_SCHEMA, "[1, null]");
  assertSchemaAndValue(
    parseString('{ "foo" : "123", \n"bar" : "baz" } '),
    SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build(),
    new Map([["foo", "123"], ["bar", "baz"]]),
  );
  assertSchemaAndValue(parseString('["foo", 1234567890]'), null, ["foo", 1234567890]);
  assertSchemaAndValue(parseString("[]"), null, []);
  assertSchemaAndValue(parseString("{1:2"), Schema.STRING_SCHEMA, "{1:2");
  assertSchemaAndValue(parseString("2019-08-23"), ConnectDate.SCHEMA, new Date(Date.UTC(2019, 7, 23)));
  assertSchemaAndValue(parseString("14:34:54.346Z"), ConnectTime.SCHEMA, new Date(52494346));
  assertEquals(convertToString(null, null), null);
});

Deno.test("SimpleHeaderConverter keeps undecodable text as a string", () => {
  assertSchemaAndValue(
    converter.toConnectHeader(TOPIC, "h", bytes("not [ parseable")),
    Schema.STRING_SCHEMA,
    "not [ parseable",
  );
  assertSchemaAndValue(converter.toConnectHeader(TOPIC, "h", null), null, null);
});
