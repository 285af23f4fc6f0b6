/** The Connect data model: SchemaBuilder, Struct validation, logical types, BigDecimal and value helpers. */
import assert from "node:assert/strict";
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
  assert.equal(schema.type, "INT32");
  assert.equal(schema.isOptional, true);
  assert.equal(schema.name, "n");
  assert.equal(schema.version, 2);
  assert.equal(schema.doc, "d");
  assert.deepEqual([...schema.parameters!], [["a", "1"]]);
  assert.equal(String(schema), "Schema{n:INT32}");
  assert.throws(() => SchemaBuilder.int32().name("a").name("b"), {
    name: "SchemaBuilderException",
    message: "Invalid SchemaBuilder call: name has already been set.",
  });
  assert.throws(() => SchemaBuilder.int32().field("f", Schema.INT8_SCHEMA), {
    message: "Cannot create fields on type INT32",
  });
  assert.throws(() => SchemaBuilder.struct().field("f", Schema.INT8_SCHEMA).field("f", Schema.INT8_SCHEMA), {
    message: "Cannot create field because of field name duplication f",
  });
  assert.throws(() => SchemaBuilder.int8().defaultValue("x"), SchemaBuilderException);
  assert.throws(() => Schema.INT8_SCHEMA.fields(), { message: "Cannot list fields on non-struct type" });
  assert.throws(() => Schema.INT8_SCHEMA.valueSchema(), DataException);
  assert.equal(person.field("age")!.index, 1);
  assert.equal(person.field("missing"), null);
});

Deno.test("Schemas compare structurally, including defaults, parameters and fields", () => {
  const a = SchemaBuilder.struct().field("x", SchemaBuilder.bytes().defaultValue(new Uint8Array([1])).build())
    .build();
  const b = SchemaBuilder.struct().field("x", SchemaBuilder.bytes().defaultValue(new Uint8Array([1])).build())
    .build();
  const c = SchemaBuilder.struct().field("x", SchemaBuilder.bytes().defaultValue(new Uint8Array([2])).build())
    .build();
  assert.ok(schemaEquals(a, b));
  assert.ok(!schemaEquals(a, c));
  assert.ok(ConnectDecimal.schema(2).equals(ConnectDecimal.schema(2)));
  assert.ok(!ConnectDecimal.schema(2).equals(ConnectDecimal.schema(3)));
  assert.ok(!Schema.INT8_SCHEMA.equals(Schema.OPTIONAL_INT8_SCHEMA));
});

Deno.test("Struct validates values against field schemas and names the field", () => {
  const struct = new Struct(person).put("name", "Bobby McGee").put("age", 21);
  assert.equal(struct.get("name"), "Bobby McGee");
  assert.equal(struct.get("score"), 10);
  assert.equal(struct.getWithoutDefault("score"), null);
  assert.equal(struct.getInt32("age"), 21);
  assert.equal(String(struct), "Struct{name=Bobby McGee,age=21}");
  struct.validate();
  assert.throws(() => struct.put("age", "21"), {
    name: "DataException",
    message: 'Invalid value for schema with type INT32: string (expected a number) for field: "age"',
  });
  assert.throws(() => struct.put("age", 2 ** 31), /number outside the INT32 range\) for field: "age"/);
  assert.throws(() => struct.put("name", null), {
    message: 'Invalid value: null used for required field: "name", schema type: STRING',
  });
  assert.throws(() => struct.put("nope", 1), { message: "nope is not a valid field name" });
  assert.throws(() => struct.getString("age"), { message: "Field 'age' is not of type STRING" });
  assert.throws(() => new Struct(person).validate(), {
    message: 'Invalid value: null used for required field: "name", schema type: STRING',
  });
  assert.throws(() => new Struct(Schema.INT8_SCHEMA), { message: "Not a struct schema: Schema{INT8}" });
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
  assert.throws(() => s.put("big", 2n ** 63n), /bigint outside the INT64 range/);
  assert.throws(() => s.put("big", 2 ** 60), /safe integer/);
  assert.throws(() => s.put("list", [1, 999]), /number outside the INT8 range\) for field: "list"/);
  assert.throws(() => s.put("map", new Map([[1, true]])), /type STRING: number/);
  const otherPerson = SchemaBuilder.struct().field("name", Schema.STRING_SCHEMA).build();
  assert.throws(() => s.put("person", new Struct(otherPerson).put("name", "x")), {
    message: "Struct schemas do not match.",
  });
  assert.throws(() => s.put("person", new Struct(person)), /null used for required field: "name"/);
  const t = new Struct(schema).put("big", 5n).put("list", [1, 2]).put("map", { b: false })
    .put("person", new Struct(person).put("name", "n").put("age", 1));
  s.put("person", new Struct(person).put("name", "n").put("age", 1));
  assert.ok(s.equals(t));
  assert.ok(!s.equals(t.put("big", 6)));
});

Deno.test("Logical types convert like Kafka's", () => {
  assert.deepEqual([...ConnectDecimal.fromLogical(ConnectDecimal.schema(2), new BigDecimal(156n, 2))], [
    0,
    0x9c,
  ]);
  assert.ok(
    ConnectDecimal.toLogical(ConnectDecimal.schema(2), new Uint8Array([0, 0x9c])).equals(
      new BigDecimal(156n, 2),
    ),
  );
  assert.equal(ConnectDecimal.schema(2).parameters!.get("scale"), "2");
  assert.throws(() => ConnectDecimal.scale(Schema.BYTES_SCHEMA), {
    message: "Invalid Decimal schema: scale parameter not found.",
  });
  assert.equal(ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(Date.UTC(1997, 4, 13))), 9994);
  assert.equal(ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(-86400000)), -1);
  assert.equal(ConnectDate.toLogical(ConnectDate.SCHEMA, 9994).toISOString(), "1997-05-13T00:00:00.000Z");
  assert.throws(() => ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(1)), {
    message: "Kafka Connect Date type should not have any time fields set to non-zero values.",
  });
  assert.throws(() => ConnectDate.fromLogical(Schema.INT32_SCHEMA, new Date(0)), {
    message: "Requested conversion of Date object but the schema does not match.",
  });
  assert.equal(ConnectTime.fromLogical(ConnectTime.SCHEMA, new Date(3723004)), 3723004);
  assert.throws(() => ConnectTime.fromLogical(ConnectTime.SCHEMA, new Date(86400001)), {
    message: "Kafka Connect Time type should not have any date fields set to non-zero values.",
  });
  assert.throws(
    () => ConnectTime.toLogical(ConnectTime.SCHEMA, -1),
    /Time values must use number of milliseconds/,
  );
  assert.equal(ConnectTimestamp.fromLogical(ConnectTimestamp.SCHEMA, new Date(1727784000000)), 1727784000000);
  assert.equal(ConnectTimestamp.toLogical(ConnectTimestamp.SCHEMA, 42n).getTime(), 42);
  assert.equal(ConnectTimestamp.SCHEMA.name, "org.apache.kafka.connect.data.Timestamp");
  assert.equal(ConnectTimestamp.SCHEMA.version, 1);
  assert.throws(
    () => new Struct(SchemaBuilder.struct().field("t", ConnectTimestamp.SCHEMA).build()).put("t", 5),
    /expected a Date/,
  );
});

Deno.test("BigDecimal is exact and prints like Java", () => {
  assert.equal(new BigDecimal(156n, 2).toString(), "1.56");
  assert.equal(new BigDecimal(15600n, 4).toString(), "1.5600");
  assert.equal(new BigDecimal(0n, 2).toString(), "0.00");
  assert.equal(new BigDecimal(1n, 10).toString(), "1E-10");
  assert.equal(new BigDecimal(-5n, 7).toString(), "-5E-7");
  assert.equal(new BigDecimal(5n, 6).toString(), "0.000005");
  assert.equal(new BigDecimal(123n, -2).toString(), "1.23E+4");
  assert.equal(new BigDecimal(123n, -2).toPlainString(), "12300");
  assert.equal(new BigDecimal(1n, 10).toPlainString(), "0.0000000001");
  assert.equal(BigDecimal.parse("1.23456789123456789").unscaled, 123456789123456789n);
  assert.equal(BigDecimal.parse("1E+3").scale, -3);
  assert.equal(BigDecimal.parse("-.5").toString(), "-0.5");
  assert.equal(BigDecimal.tryParse("1.2.3"), null);
  assert.equal(BigDecimal.fromNumber(0.1).toString(), "0.1");
  assert.equal(new BigDecimal(150n, 2).compareTo(new BigDecimal(15n, 1)), 0);
  assert.ok(!new BigDecimal(150n, 2).equals(new BigDecimal(15n, 1)));
  assert.equal(new BigDecimal(15n, 1).withScale(3).toString(), "1.500");
  assert.throws(() => new BigDecimal(15n, 1).withScale(0), DataException);
  assert.equal(JSON.stringify({ d: new BigDecimal(1n, 10) }), '{"d":"0.0000000001"}');
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
    assert.deepEqual([...bigintToTwosComplement(value)], expected, `encode ${value}`);
    assert.equal(twosComplementToBigint(new Uint8Array(expected)), value, `decode ${value}`);
  }
  assert.throws(() => twosComplementToBigint(new Uint8Array()), DataException);
});

Deno.test("validateValue checks logical values", () => {
  validateValue(ConnectDecimal.schema(2), new BigDecimal(1n, 2));
  assert.throws(
    () => validateValue(ConnectDecimal.schema(2), 1.5, "price"),
    {
      message:
        'Invalid value for schema "org.apache.kafka.connect.data.Decimal" with type BYTES: number (expected a BigDecimal) for field: "price"',
    },
  );
  assert.throws(() => validateValue(ConnectDate.SCHEMA, new Date(NaN)), /invalid Date/);
});

Deno.test("Schemaless typing helpers infer Connect types from JS values", () => {
  assert.equal(schemalessTypeOf("a"), "STRING");
  assert.equal(schemalessTypeOf(1), "INT64");
  assert.equal(schemalessTypeOf(1.5), "FLOAT64");
  assert.equal(schemalessTypeOf(1n), "INT64");
  assert.equal(schemalessTypeOf(new Uint8Array()), "BYTES");
  assert.equal(schemalessTypeOf({}), "MAP");
  assert.equal(schemalessTypeOf(new Map()), "MAP");
  assert.equal(schemalessTypeOf(new Struct(person)), "STRUCT");
  assert.equal(schemalessTypeOf(new Date()), null);
  assert.equal(schemalessTypeOf(null), null);
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
  assert.equal(inferSchema([1, "a"]), null);
  assert.equal(inferSchema([]), null);
  assert.equal(normalizeInt64(5n), 5);
  assert.equal(normalizeInt64(2n ** 60n), 2n ** 60n);
});

Deno.test("valuesEqual compares Connect values deeply", () => {
  assert.ok(valuesEqual(12, 12n));
  assert.ok(!valuesEqual(12.5, 12n));
  assert.ok(valuesEqual(NaN, NaN));
  assert.ok(valuesEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])));
  assert.ok(!valuesEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])));
  assert.ok(valuesEqual(new Date(5), new Date(5)));
  assert.ok(valuesEqual({ a: [1, { b: 2 }] }, new Map<string, unknown>([["a", [1, new Map([["b", 2]])]]])));
  assert.ok(!valuesEqual({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(valuesEqual(new Map([[new Uint8Array([1]), "x"]]), new Map([[new Uint8Array([1]), "x"]])));
  assert.ok(valuesEqual(new BigDecimal(1n, 1), new BigDecimal(1n, 1)));
  assert.ok(!valuesEqual(new BigDecimal(1n, 1), new BigDecimal(10n, 2)));
  assert.ok(!valuesEqual([1], { 0: 1 }));
  assert.ok(valuesEqual(null, undefined));
});
