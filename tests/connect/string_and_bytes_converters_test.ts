/** StringConverter and ByteArrayConverter. */
import { assertEquals, assertStrictEquals, assertThrows } from "../support/assert.ts";
import { StringConverter } from "../../src/connect/converters/string_converter.ts";
import { ByteArrayConverter } from "../../src/connect/converters/byte_array_converter.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import { ConfigException, DataException } from "../../src/connect/errors.ts";
import { assertSchemaAndValue, bytes, text, TOPIC } from "./helpers.ts";

function stringConverter(configs: Record<string, string> = {}): StringConverter {
  const c = new StringConverter();
  c.configure(configs, false);
  return c;
}

Deno.test("StringConverter writes and reads UTF-8 text by default", () => {
  const c = stringConverter();
  assertEquals(c.encoding, "UTF-8");
  assertEquals(c.fromConnectData(TOPIC, Schema.STRING_SCHEMA, "a-string-é"), bytes("a-string-é"));
  assertEquals(c.fromConnectData(TOPIC, Schema.OPTIONAL_STRING_SCHEMA, null), null);
  assertSchemaAndValue(
    c.toConnectData(TOPIC, bytes("a-string-é")),
    Schema.OPTIONAL_STRING_SCHEMA,
    "a-string-é",
  );
  assertSchemaAndValue(c.toConnectData(TOPIC, null), Schema.OPTIONAL_STRING_SCHEMA, null);
});

Deno.test("StringConverter writes non-strings as Java's toString", () => {
  const c = stringConverter();
  const write = (schema: Schema | null, value: unknown) => text(c.fromConnectData(TOPIC, schema, value));
  assertEquals(write(Schema.INT32_SCHEMA, 12), "12");
  assertEquals(write(Schema.FLOAT64_SCHEMA, 1), "1.0");
  assertEquals(write(Schema.FLOAT32_SCHEMA, 12.34), "12.34");
  assertEquals(write(null, true), "true");
  assertEquals(write(null, 9223372036854775807n), "9223372036854775807");
  assertEquals(write(null, new BigDecimal(156n, 2)), "1.56");
  assertEquals(write(null, new Date(0)), "Thu Jan 01 00:00:00 UTC 1970");
  assertEquals(write(null, [1, 2]), "[1, 2]");
  const schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
  assertEquals(write(schema, new Struct(schema).put("a", 1)), "Struct{a=1}");
});

Deno.test("StringConverter honours converter.encoding", () => {
  const latin1 = stringConverter({ "converter.encoding": "ISO-8859-1" });
  assertEquals([...latin1.fromConnectData(TOPIC, null, "é€")!], [0xe9, 0x3f]);
  assertEquals(latin1.toConnectData(TOPIC, new Uint8Array([0xe9])).value, "é");
  const utf16 = stringConverter({ "converter.encoding": "UTF-16" });
  assertEquals([...utf16.fromConnectData(TOPIC, null, "A")!], [0xfe, 0xff, 0x00, 0x41]);
  assertEquals(utf16.toConnectData(TOPIC, new Uint8Array([0xff, 0xfe, 0x41, 0x00])).value, "A");
  assertThrows(
    () => stringConverter({ "converter.encoding": "EBCDIC" }),
    ConfigException,
    /^Invalid value EBCDIC for configuration converter\.encoding/,
  );
});

Deno.test("ByteArrayConverter passes bytes through and rejects other data", () => {
  const c = new ByteArrayConverter();
  c.configure({}, false);
  const data = new Uint8Array([1, 2, 3]);
  assertStrictEquals(c.fromConnectData(TOPIC, Schema.BYTES_SCHEMA, data), data);
  assertStrictEquals(c.fromConnectData(TOPIC, null, data), data);
  assertEquals(c.fromConnectData(TOPIC, Schema.BYTES_SCHEMA, null), null);
  assertSchemaAndValue(c.toConnectData(TOPIC, data), Schema.OPTIONAL_BYTES_SCHEMA, data);
  assertSchemaAndValue(c.toConnectData(TOPIC, null), Schema.OPTIONAL_BYTES_SCHEMA, null);
  assertThrows(
    () => c.fromConnectData(TOPIC, Schema.INT32_SCHEMA, 12),
    DataException,
    "Invalid schema type for ByteArrayConverter: INT32",
  );
  assertThrows(
    () => c.fromConnectData(TOPIC, null, "string"),
    Error,
    "ByteArrayConverter is not compatible with objects of type string",
  );
  assertStrictEquals(c.fromConnectHeader(TOPIC, "h", null, data), data);
});
