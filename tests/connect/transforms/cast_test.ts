import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { BigDecimal } from "../../../src/connect/big_decimal.ts";
import { ConfigException, DataException } from "../../../src/connect/errors.ts";
import { ConnectDate, ConnectDecimal, ConnectTimestamp } from "../../../src/connect/logical.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, source, transform } from "./helpers.ts";

function castWhole(
  type: string,
  schema: Schema | null,
  value: unknown,
): { schema: Schema | null; value: unknown } {
  const out = applied(transform("Cast$Value", { spec: type }), source({ valueSchema: schema, value }));
  return { schema: out.valueSchema, value: out.value };
}

Deno.test("Cast$Key whole-value cast with schema (int32 42 → int8)", () => {
  const out = applied(
    transform("Cast$Key", { spec: "int8" }),
    source({ keySchema: Schema.INT32_SCHEMA, key: 42 }),
  );
  assertEquals([out.keySchema!.type, out.key], ["INT8", 42]);
});

Deno.test("Cast whole-value schemaless: strings parse like Java, numbers narrow like Java casts", () => {
  assertEquals(castWhole("int64", null, "42").value, 42);
  assertEquals(castWhole("int8", null, 300).value, 44);
  assertEquals(castWhole("int8", Schema.FLOAT64_SCHEMA, 1e10).value, -1); // (byte)(int)1e10: saturate, then wrap
  assertEquals(castWhole("int8", null, 1e10).value, 0); // a schemaless whole number is a Long: (byte)10000000000L
  assertEquals(castWhole("int32", null, -3.9).value, -3);
  assertEquals(castWhole("float32", null, "1.5").value, 1.5);
  assertEquals(castWhole("boolean", null, 0.5).value, false); // longValue() != 0
  assertEquals(castWhole("boolean", null, "TRUE").value, true);
  assertEquals(castWhole("boolean", null, "yes").value, false);
  assertEquals(castWhole("int32", null, true).value, 1);
  assertEquals(castWhole("string", null, new Uint8Array([104, 105])).value, "aGk=");
});

Deno.test("Cast to string prints Java's toString for the schema type", () => {
  assertEquals(castWhole("string", Schema.FLOAT64_SCHEMA, 1).value, "1.0");
  assertEquals(castWhole("string", Schema.FLOAT32_SCHEMA, 12.34).value, "12.34");
  assertEquals(castWhole("string", Schema.FLOAT64_SCHEMA, 1e7).value, "1.0E7");
  assertEquals(castWhole("string", Schema.INT64_SCHEMA, 42).value, "42");
  assertEquals(castWhole("string", ConnectDecimal.schema(2), new BigDecimal(4200n, 2)).value, "42.00");
});

Deno.test("Cast fields of a Struct (Kafka's castFieldsWithSchema)", () => {
  const schema = SchemaBuilder.struct()
    .field("int8", Schema.INT8_SCHEMA).field("int16", Schema.OPTIONAL_INT16_SCHEMA).field(
      "int32",
      Schema.INT32_SCHEMA,
    )
    .field("int64", Schema.INT64_SCHEMA).field("float32", Schema.FLOAT32_SCHEMA).field(
      "float64",
      Schema.FLOAT64_SCHEMA,
    )
    .field("boolean", Schema.BOOLEAN_SCHEMA).field("string", Schema.STRING_SCHEMA)
    .field("date", ConnectDate.SCHEMA).field("timestamp", ConnectTimestamp.SCHEMA)
    .field("optional", Schema.OPTIONAL_FLOAT32_SCHEMA).field("untouched", Schema.STRING_SCHEMA).build();
  const value = new Struct(schema).put("int8", 8).put("int16", 16).put("int32", 32).put("int64", 64)
    .put("float32", 32).put("float64", -64).put("boolean", true).put("string", "42")
    .put("date", new Date(Date.UTC(2021, 0, 2))).put("timestamp", new Date(1000)).put("untouched", "u");
  const spec =
    "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,boolean:int8," +
    "string:int32,date:string,timestamp:int64,optional:int32";
  const out = applied(transform("Cast$Value", { spec }), source({ valueSchema: schema, value }));
  const v = out.value as Struct;
  const s = out.valueSchema!;
  assertEquals(s.fields().map((f) => f.schema.type), [
    "INT16",
    "INT32",
    "INT64",
    "BOOLEAN",
    "FLOAT64",
    "BOOLEAN",
    "INT8",
    "INT32",
    "STRING",
    "INT64",
    "INT32",
    "STRING",
  ]);
  assert(
    s.field("int16")!.schema.isOptional && s.field("optional")!.schema.isOptional,
    "optionality is kept",
  );
  assertEquals(
    s.fields().map((f) => v.get(f.name)),
    [8, 16, 32, true, 32, true, 1, 42, "2021-01-02", 1000, null, "u"],
  );
});

Deno.test("Cast schemaless map fields; Date values to int use their encoding", () => {
  const t = transform("Cast$Value", { spec: "a:int16,b:string,c:float64" });
  assertEquals(applied(t, source({ value: { a: "7", b: 3, c: "2.5", d: "kept" } })).value, {
    a: 7,
    b: "3",
    c: 2.5,
    d: "kept",
  });
});

Deno.test("Cast errors: unparsable strings, bytes to numbers, unsupported input types", () => {
  assertThrows(
    () => castWhole("int32", null, "1.5"),
    DataException,
    "Value (1.5) was out of range for requested data type",
  );
  assertThrows(() => castWhole("int8", null, "128"), DataException, "out of range");
  assertThrows(
    () => castWhole("int32", Schema.BYTES_SCHEMA, new Uint8Array([1])),
    DataException,
    "Unexpected type in Cast transformation: class [B",
  );
  assertThrows(
    () => castWhole("string", null, { a: 1 }),
    DataException,
    "Cast transformation does not support casting from MAP; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]",
  );
});

Deno.test("Cast spec errors match Kafka's messages", () => {
  assertThrows(
    () => transform("Cast$Value", { spec: "" }),
    ConfigException,
    "Must specify at least one field to cast.",
  );
  assertThrows(
    () => transform("Cast$Value", { spec: "foo:faketype" }),
    ConfigException,
    "Invalid type found in casting spec: faketype",
  );
  assertThrows(
    () => transform("Cast$Value", { spec: "array" }),
    ConfigException,
    "Cast transformation does not support casting to ARRAY; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]",
  );
  assertThrows(
    () => transform("Cast$Value", { spec: "int8,a:int16" }),
    ConfigException,
    "may ony specify a single cast in their spec",
  );
  assertThrows(
    () => transform("Cast$Value", { spec: "a:b:c" }),
    ConfigException,
    "Invalid rename mapping: a:b:c",
  );
});

Deno.test("Cast passes null values through", () => {
  const tombstone = source({ value: null });
  assertEquals(transform("Cast$Value", { spec: "int8" }).apply(tombstone), tombstone);
});
