/** Typed mode coercions for every allowed type, including those the spec leaves open (int8/16, float32, bytes, time, decimal(scale)). */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import {
  coerceTyped,
  decimalScaleFromSamples,
  parseTypedFields,
  parseTypedType,
  typedSchema,
  TypedValueError,
} from "../../src/source/typed_coercion.ts";

const t = parseTypedType;
const bad = (type: string, text: string) => assertThrows(() => coerceTyped(t(type), text), TypedValueError);

Deno.test("typed: empty string is null for every type but string; null stays null", () => {
  for (
    const type of [
      "boolean",
      "int8",
      "int16",
      "int32",
      "int64",
      "float32",
      "float64",
      "bytes",
      "timestamp",
      "date",
      "time",
      "decimal(2)",
    ]
  ) {
    assertEquals(coerceTyped(t(type), "", 2), null, type);
    assertEquals(coerceTyped(t(type), null, 2), null, type);
  }
  assertEquals(coerceTyped(t("string"), ""), "");
  assertEquals(coerceTyped(t("string"), "abc"), "abc");
});

Deno.test("typed: boolean accepts true/false/1/0 only", () => {
  assertEquals(coerceTyped(t("boolean"), "true"), true);
  assertEquals(coerceTyped(t("boolean"), "1"), true);
  assertEquals(coerceTyped(t("boolean"), "false"), false);
  assertEquals(coerceTyped(t("boolean"), "0"), false);
  bad("boolean", "yes");
  bad("boolean", "2");
});

Deno.test("typed: integers are decimal integers within their range", () => {
  assertEquals(coerceTyped(t("int8"), "-128"), -128);
  assertEquals(coerceTyped(t("int8"), "127"), 127);
  bad("int8", "128");
  bad("int8", "-129");
  assertEquals(coerceTyped(t("int16"), "32767"), 32767);
  bad("int16", "32768");
  assertEquals(coerceTyped(t("int32"), "-2147483648"), -2147483648);
  bad("int32", "2147483648");
  assertEquals(coerceTyped(t("int64"), "9007199254740991"), 9007199254740991);
  assertEquals(coerceTyped(t("int64"), "9223372036854775807"), 9223372036854775807n);
  assertEquals(coerceTyped(t("int64"), "-9223372036854775808"), -9223372036854775808n);
  bad("int64", "9223372036854775808");
  bad("int32", "1.5");
  bad("int32", "1,000");
  bad("int32", " 1");
  bad("int32", "0x10");
});

Deno.test("typed: floats are finite decimal numbers; float32 rejects values beyond its range", () => {
  assertEquals(coerceTyped(t("float64"), "-1.5e3"), -1500);
  assertEquals(coerceTyped(t("float64"), ".25"), 0.25);
  assertEquals(coerceTyped(t("float32"), "3.4e38"), 3.4e38);
  bad("float32", "3.5e38");
  bad("float64", "1e400");
  bad("float64", "NaN");
  bad("float64", "Infinity");
  bad("float64", "1.2.3");
});

Deno.test("typed: bytes are Base64", () => {
  assertEquals(coerceTyped(t("bytes"), "AQID/w=="), new Uint8Array([1, 2, 3, 255]));
  assertEquals(coerceTyped(t("bytes"), "AQID/w"), new Uint8Array([1, 2, 3, 255]));
  bad("bytes", "not base64!");
});

Deno.test("typed: timestamp, date and time from the instance's UTC text", () => {
  assertEquals(
    coerceTyped(t("timestamp"), "2024-02-29 23:59:58"),
    new Date(Date.UTC(2024, 1, 29, 23, 59, 58)),
  );
  bad("timestamp", "2023-02-29 00:00:00");
  bad("timestamp", "2024-01-01T00:00:00");
  bad("timestamp", "2024-01-01 24:00:00");
  assertEquals(coerceTyped(t("date"), "2024-12-31"), new Date(Date.UTC(2024, 11, 31)));
  bad("date", "2024-13-01");
  bad("date", "12-31-2024");
  assertEquals(coerceTyped(t("time"), "13:45:07"), new Date(((13 * 60 + 45) * 60 + 7) * 1000));
  bad("time", "25:00:00");
  bad("time", "1:00:00");
  assertEquals(typedSchema(t("time")).name, "org.apache.kafka.connect.data.Time");
  assertEquals(typedSchema(t("date")).name, "org.apache.kafka.connect.data.Date");
  assertEquals(typedSchema(t("timestamp")).name, "org.apache.kafka.connect.data.Timestamp");
});

Deno.test("typed: decimal(scale) pads exactly and refuses a value that would need rounding", () => {
  assertEquals(coerceTyped(t("decimal(2)"), "12.5"), new BigDecimal(1250n, 2));
  assertEquals(coerceTyped(t("decimal(2)"), "-3"), new BigDecimal(-300n, 2));
  assertEquals(
    coerceTyped(t("decimal(2)"), "1.500"),
    new BigDecimal(150n, 2),
    "trailing zeros need no rounding",
  );
  bad("decimal(2)", "1.505");
  bad("decimal(2)", "1e3");
  bad("decimal(2)", "abc");
  const schema = typedSchema(t("decimal(2)"));
  assertEquals(schema.name, "org.apache.kafka.connect.data.Decimal");
  assertEquals(schema.parameters?.get("scale"), "2");
  assert(schema.isOptional);
});

Deno.test("typed: plain decimal takes its scale from the data", () => {
  assertEquals(decimalScaleFromSamples(["1.5", "", "2.125", "7"]), 3);
  assertEquals(decimalScaleFromSamples(["", null, undefined]), null);
  assertEquals(coerceTyped(t("decimal"), "2.1", 3), new BigDecimal(2100n, 3));
  assertThrows(() => coerceTyped(t("decimal"), "2.1234", 3), TypedValueError, "rounding");
});

Deno.test("typed: svc.source.typed.fields parses field:type entries", () => {
  const fields = parseTypedFields(["priority:int32", "cost:decimal(4)", "when:timestamp"]);
  assertEquals(fields.get("priority"), { kind: "int32" });
  assertEquals(fields.get("cost"), { kind: "decimal", scale: 4 });
  assertThrows(() => parseTypedFields(["priority"]), RangeError);
  assertThrows(() => parseTypedType("uuid"), RangeError);
});
