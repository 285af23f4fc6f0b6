/** The Connect data model: SchemaBuilder, Struct validation, logical types, BigDecimal and value helpers. */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { Schema, schemaEquals } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct, validateValue } from "../../src/connect/struct.ts";
import { BigDecimal, bigintToTwosComplement, twosComplementToBigint } from "../../src/connect/big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../src/connect/logical.ts";
import { DataException, SchemaBuilderException } from "../../src/connect/errors.ts";
import { inferSchema, normalizeInt64, schemalessTypeOf } from "../../src/connect/values.ts";
import { valuesEqual } from "../../src/connect/equality.ts";
import { assertSchemaAndValue } from "./helpers.ts";

const person = SchemaBuilder.struct().name("com.example.Person")
  .field("name", Schema.STRING_SCHEMA)
  .field("age", Schema.INT32_SCHEMA)
  .field("nick", Schema.OPTIONAL_STRING_SCHEMA)
  .field("score", SchemaBuilder.int64().defaultValue(10).build())
  .build();

Deno.test("SchemaBuilder builds schemas with metadata, and rejects invalid calls like Kafka", () => {
  const schema = SchemaBuilder.int32().name("n").version(2).doc("d").parameter("a", "1").optional().build();
  assertEquals(schema.type, "INT32");
  assertEquals(schema.isOptional, true);
  assertEquals(schema.name, "n");
  assertEquals(schema.version, 2);
  assertEquals(schema.doc, "d");
  assertEquals([...schema.parameters!], [["a", "1"]]);
  assertEquals(String(schema), "Schema{n:INT32}");
  assertThrows(
    () => SchemaBuilder.int32().name("a").name("b"),
    SchemaBuilderException,
    "Invalid SchemaBuilder call: name has already been set.",
  );
  assertThrows(
    () => SchemaBuilder.int32().field("f", Schema.INT8_SCHEMA),
    Error,
    "Cannot create fields on type INT32",
  );
  assertThrows(
    () => SchemaBuilder.struct().field("f", Schema.INT8_SCHEMA).field("f", Schema.INT8_SCHEMA),
    Error,
    "Cannot create field because of field name duplication f",
  );
  assertThrows(() => SchemaBuilder.int8().defaultValue("x"), SchemaBuilderException);
  assertThrows(() => Schema.INT8_SCHEMA.fields(), Error, "Cannot list fields on non-struct type");
  assertThrows(() => Schema.INT8_SCHEMA.valueSchema(), DataException);
  assertEquals(person.field("age")!.index, 1);
  assertEquals(person.field("missing"), null);
});

Deno.test("Schemas compare structurally, including defaults, parameters and fields", () => {
  const a = SchemaBuilder.struct().field("x", SchemaBuilder.bytes().defaultValue(new Uint8Array([1])).build())
    .build();
  const b = SchemaBuilder.struct().field("x", SchemaBuilder.bytes().defaultValue(new Uint8Array([1])).build())
    .build();
  const c = SchemaBuilder.struct().field("x", SchemaBuilder.bytes().defaultValue(new Uint8Array([2])).build())
    .build();
  assert(schemaEquals(a, b));
  assert(!schemaEquals(a, c));
  assert(ConnectDecimal.schema(2).equals(ConnectDecimal.schema(2)));
  assert(!ConnectDecimal.schema(2).equals(ConnectDecimal.schema(3)));
  assert(!Schema.INT8_SCHEMA.equals(Schema.OPTIONAL_INT8_SCHEMA));
});

Deno.test("Struct validates values against field schemas and names the field", () => {
  const struct = new Struct(person).put("name", "Bobby McGee").put("age", 21);
  assertEquals(struct.get("name"), "Bobby McGee");
  assertEquals(struct.get("score"), 10);
  assertEquals(struct.getWithoutDefault("score"), null);
  assertEquals(struct.getInt32("age"), 21);
  assertEquals(String(struct), "Struct{name=Bobby McGee,age=21}");
  struct.validate();
  assertThrows(
    () => struct.put("age", "21"),
    DataException,
    'Invalid value for schema with type INT32: string (expected a number) for field: "age"',
  );
  assertThrows(() => struct.put("age", 2 ** 31), Error, /number outside the INT32 range\) for field: "age"/);
  assertThrows(
    () => struct.put("name", null),
    Error,
    'Invalid value: null used for required field: "name", schema type: STRING',
  );
  assertThrows(() => struct.put("nope", 1), Error, "nope is not a valid field name");
  assertThrows(() => struct.getString("age"), Error, "Field 'age' is not of type STRING");
  assertThrows(
    () => new Struct(person).validate(),
    Error,
    'Invalid value: null used for required field: "name", schema type: STRING',
  );
  assertThrows(() => new Struct(Schema.INT8_SCHEMA), Error, "Not a struct schema: Schema{INT8}");
});

Deno.test("Struct accepts INT64 as number or bigint, and checks nested structs and containers", () => {
  const schema = SchemaBuilder.struct()
    .field("big", Schema.INT64_SCHEMA)
    .field("list", SchemaBuilder.array(Schema.INT8_SCHEMA).build())
    .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.BOOLEAN_SCHEMA).build())
    .field("person", person)
    .build();
  const s = new Struct(schema).put("big", 9223372036854775807n).put("big", 5).put("list", [1, 2])
    .put("map", { a: true }).put("map", new Map([["b", false]]));
  assertThrows(() => s.put("big", 2n ** 63n), Error, /bigint outside the INT64 range/);
  assertThrows(() => s.put("big", 2 ** 60), Error, /safe integer/);
  assertThrows(() => s.put("list", [1, 999]), Error, /number outside the INT8 range\) for field: "list"/);
  assertThrows(() => s.put("map", new Map([[1, true]])), Error, /type STRING: number/);
  const otherPerson = SchemaBuilder.struct().field("name", Schema.STRING_SCHEMA).build();
  assertThrows(
    () => s.put("person", new Struct(otherPerson).put("name", "x")),
    Error,
    "Struct schemas do not match.",
  );
  assertThrows(() => s.put("person", new Struct(person)), Error, /null used for required field: "name"/);
  const t = new Struct(schema).put("big", 5n).put("list", [1, 2]).put("map", { b: false })
    .put("person", new Struct(person).put("name", "n").put("age", 1));
  s.put("person", new Struct(person).put("name", "n").put("age", 1));
  assert(s.equals(t));
  assert(!s.equals(t.put("big", 6)));
});

Deno.test("Logical types convert like Kafka's", () => {
  assertEquals([...ConnectDecimal.fromLogical(ConnectDecimal.schema(2), new BigDecimal(156n, 2))], [
    0,
    0x9c,
  ]);
  assert(
    ConnectDecimal.toLogical(ConnectDecimal.schema(2), new Uint8Array([0, 0x9c])).equals(
      new BigDecimal(156n, 2),
    ),
  );
  assertEquals(ConnectDecimal.schema(2).parameters!.get("scale"), "2");
  assertThrows(
    () => ConnectDecimal.scale(Schema.BYTES_SCHEMA),
    Error,
    "Invalid Decimal schema: scale parameter not found.",
  );
  assertEquals(ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(Date.UTC(1997, 4, 13))), 9994);
  assertEquals(ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(-86400000)), -1);
  assertEquals(ConnectDate.toLogical(ConnectDate.SCHEMA, 9994).toISOString(), "1997-05-13T00:00:00.000Z");
  assertThrows(
    () => ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(1)),
    Error,
    "Kafka Connect Date type should not have any time fields set to non-zero values.",
  );
  assertThrows(
    () => ConnectDate.fromLogical(Schema.INT32_SCHEMA, new Date(0)),
    Error,
    "Requested conversion of Date object but the schema does not match.",
  );
  assertEquals(ConnectTime.fromLogical(ConnectTime.SCHEMA, new Date(3723004)), 3723004);
  assertThrows(
    () => ConnectTime.fromLogical(ConnectTime.SCHEMA, new Date(86400001)),
    Error,
    "Kafka Connect Time type should not have any date fields set to non-zero values.",
  );
  assertThrows(
    () => ConnectTime.toLogical(ConnectTime.SCHEMA, -1),
    Error,
    /Time values must use number of milliseconds/,
  );
  assertEquals(ConnectTimestamp.fromLogical(ConnectTimestamp.SCHEMA, new Date(1727784000000)), 1727784000000);
  assertEquals(ConnectTimestamp.toLogical(ConnectTimestamp.SCHEMA, 42n).getTime(), 42);
  assertEquals(ConnectTimestamp.SCHEMA.name, "org.apache.kafka.connect.data.Timestamp");
  assertEquals(ConnectTimestamp.SCHEMA.version, 1);
  assertThrows(
    () => new Struct(SchemaBuilder.struct().field("t", ConnectTimestamp.SCHEMA).build()).put("t", 5),
    Error,
    /expected a Date/,
  );
});

Deno.test("BigDecimal is exact and prints like Java", () => {
  assertEquals(new BigDecimal(156n, 2).toString(), "1.56");
  assertEquals(new BigDecimal(15600n, 4).toString(), "1.5600");
  assertEquals(new BigDecimal(0n, 2).toString(), "0.00");
  assertEquals(new BigDecimal(1n, 10).toString(), "1E-10");
  assertEquals(new BigDecimal(-5n, 7).toString(), "-5E-7");
  assertEquals(new BigDecimal(5n, 6).toString(), "0.000005");
  assertEquals(new BigDecimal(123n, -2).toString(), "1.23E+4");
  assertEquals(new BigDecimal(123n, -2).toPlainString(), "12300");
  assertEquals(new BigDecimal(1n, 10).toPlainString(), "0.0000000001");
  assertEquals(BigDecimal.parse("1.23456789123456789").unscaled, 123456789123456789n);
  assertEquals(BigDecimal.parse("1E+3").scale, -3);
  assertEquals(BigDecimal.parse("-.5").toString(), "-0.5");
  assertEquals(BigDecimal.tryParse("1.2.3"), null);
  assertEquals(BigDecimal.fromNumber(0.1).toString(), "0.1");
  assertEquals(new BigDecimal(150n, 2).compareTo(new BigDecimal(15n, 1)), 0);
  assert(!new BigDecimal(150n, 2).equals(new BigDecimal(15n, 1)));
  assertEquals(new BigDecimal(15n, 1).withScale(3).toString(), "1.500");
  assertThrows(() => new BigDecimal(15n, 1).withScale(0), DataException);
  assertEquals(JSON.stringify({ d: new BigDecimal(1n, 10) }), '{"d":"0.0000000001"}');
});

Deno.test("Two's complement bytes match Java's BigInteger", () => {
  const cases: [bigint, number[]][] = [
    [0n, [0]],
    [1n, [1]],
    [-1n, [0xff]],
    [127n, [0x7f]],
    [128n, [0x00, 0x80]],
    [-128n, [0x80]],
    [-129n, [0xff, 0x7f]],
    [156n, [0x00, 0x9c]],
    [-156n, [0xff, 0x64]],
    [2n ** 63n, [0x00, 0x80, 0, 0, 0, 0, 0, 0, 0]],
  ];
  for (const [value, expected] of cases) {
    assertEquals([...bigintToTwosComplement(value)], expected, `encode ${value}`);
    assertEquals(twosComplementToBigint(new Uint8Array(expected)), value, `decode ${value}`);
  }
  assertThrows(() => twosComplementToBigint(new Uint8Array()), DataException);
});

Deno.test("validateValue checks logical values", () => {
  validateValue(ConnectDecimal.schema(2), new BigDecimal(1n, 2));
  assertThrows(
    () => validateValue(ConnectDecimal.schema(2), 1.5, "price"),
    Error,
    'Invalid value for schema "org.apache.kafka.connect.data.Decimal" with type BYTES: number (expected a BigDecimal) for field: "price"',
  );
  assertThrows(() => validateValue(ConnectDate.SCHEMA, new Date(NaN)), Error, /invalid Date/);
});

Deno.test("Schemaless typing helpers infer Connect types from JS values", () => {
  assertEquals(schemalessTypeOf("a"), "STRING");
  assertEquals(schemalessTypeOf(1), "INT64");
  assertEquals(schemalessTypeOf(1.5), "FLOAT64");
  assertEquals(schemalessTypeOf(1n), "INT64");
  assertEquals(schemalessTypeOf(new Uint8Array()), "BYTES");
  assertEquals(schemalessTypeOf({}), "MAP");
  assertEquals(schemalessTypeOf(new Map()), "MAP");
  assertEquals(schemalessTypeOf(new Struct(person)), "STRUCT");
  assertEquals(schemalessTypeOf(new Date()), null);
  assertEquals(schemalessTypeOf(null), null);
  assertSchemaAndValue(
    { schema: inferSchema(["a", null]), value: null },
    SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build(),
    null,
  );
  assertSchemaAndValue(
    { schema: inferSchema({ a: true }), value: null },
    SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.BOOLEAN_SCHEMA).build(),
    null,
  );
  assertEquals(inferSchema([1, "a"]), null);
  assertEquals(inferSchema([]), null);
  assertEquals(normalizeInt64(5n), 5);
  assertEquals(normalizeInt64(2n ** 60n), 2n ** 60n);
});

Deno.test("valuesEqual compares Connect values deeply", () => {
  assert(valuesEqual(12, 12n));
  assert(!valuesEqual(12.5, 12n));
  assert(valuesEqual(NaN, NaN));
  assert(valuesEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])));
  assert(!valuesEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])));
  assert(valuesEqual(new Date(5), new Date(5)));
  assert(valuesEqual({ a: [1, { b: 2 }] }, new Map<string, unknown>([["a", [1, new Map([["b", 2]])]]])));
  assert(!valuesEqual({ a: 1 }, { a: 1, b: 2 }));
  assert(valuesEqual(new Map([[new Uint8Array([1]), "x"]]), new Map([[new Uint8Array([1]), "x"]])));
  assert(valuesEqual(new BigDecimal(1n, 1), new BigDecimal(1n, 1)));
  assert(!valuesEqual(new BigDecimal(1n, 1), new BigDecimal(10n, 2)));
  assert(!valuesEqual([1], { 0: 1 }));
  assert(valuesEqual(null, undefined));
});
