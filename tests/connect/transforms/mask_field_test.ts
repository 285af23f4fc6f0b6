import { assertEquals, assertThrows } from "../../support/assert.ts";
import { BigDecimal } from "../../../src/connect/big_decimal.ts";
import { DataException } from "../../../src/connect/errors.ts";
import { ConnectDecimal, ConnectTimestamp } from "../../../src/connect/logical.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, source, transform } from "./helpers.ts";

// Kafka's MaskFieldTest: one field of every type.
const SCHEMA = SchemaBuilder.struct()
  .field("magic", Schema.INT32_SCHEMA)
  .field("bool", Schema.BOOLEAN_SCHEMA)
  .field("byte", Schema.INT8_SCHEMA)
  .field("short", Schema.INT16_SCHEMA)
  .field("int", Schema.INT32_SCHEMA)
  .field("long", Schema.INT64_SCHEMA)
  .field("float", Schema.FLOAT32_SCHEMA)
  .field("double", Schema.FLOAT64_SCHEMA)
  .field("string", Schema.STRING_SCHEMA)
  .field("date", ConnectTimestamp.SCHEMA)
  .field("bigdec", ConnectDecimal.schema(2))
  .field("list", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
  .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build())
  .build();

function struct(): Struct {
  return new Struct(SCHEMA).put("magic", 42).put("bool", true).put("byte", 42).put("short", 42).put("int", 42)
    .put("long", 42).put("float", 42.5).put("double", 42.5).put("string", "blabla").put(
      "date",
      new Date(1e12),
    )
    .put("bigdec", new BigDecimal(4200n, 2)).put("list", [42]).put("map", { something: "else" });
}

const ALL = "bool,byte,short,int,long,float,double,string,date,bigdec,list,map";

Deno.test("MaskField$Value on a Struct masks each type with its null value", () => {
  const out = applied(
    transform("MaskField$Value", { fields: ALL }),
    source({ valueSchema: SCHEMA, value: struct() }),
  );
  const v = out.value as Struct;
  assertEquals(v.get("magic"), 42);
  assertEquals(
    ["bool", "byte", "short", "int", "long", "float", "double", "string"].map((f) => v.get(f)),
    [false, 0, 0, 0, 0, 0, 0, ""],
  );
  assertEquals(v.get("date"), new Date(0));
  assertEquals((v.get("bigdec") as BigDecimal).compareTo(new BigDecimal(0n, 0)), 0);
  assertEquals([v.get("list"), v.get("map")], [[], {}]);
});

Deno.test("MaskField$Value schemaless masks by JS type and inserts null for absent fields", () => {
  const value = {
    magic: 42,
    bool: true,
    long: 42,
    double: 1.5,
    string: "x",
    list: [1],
    map: new Map([["a", 1]]),
  };
  const out = applied(
    transform("MaskField$Value", { fields: "bool,long,double,string,list,map,absent" }),
    source({ value }),
  );
  assertEquals(out.value, {
    magic: 42,
    bool: false,
    long: 0,
    double: 0,
    string: "",
    list: [],
    map: new Map(),
    absent: null,
  });
});

Deno.test("MaskField replacement converts to numeric and string fields", () => {
  const t = transform("MaskField$Value", { fields: "byte,int,long,float,string,bigdec", replacement: "123" });
  const v = applied(t, source({ valueSchema: SCHEMA, value: struct() })).value as Struct;
  assertEquals(["byte", "int", "long", "float", "string"].map((f) => v.get(f)), [123, 123, 123, 123, "123"]);
  assertEquals((v.get("bigdec") as BigDecimal).toString(), "123");
  assertEquals(
    applied(transform("MaskField$Key", { fields: "ssn", replacement: "***" }), source({ key: { ssn: "1" } }))
      .key,
    {
      ssn: "***",
    },
  );
});

Deno.test("MaskField replacement errors: non-numeric text for a number, types without conversion", () => {
  const record = source({ valueSchema: SCHEMA, value: struct() });
  assertThrows(
    () => transform("MaskField$Value", { fields: "int", replacement: "abc" }).apply(record),
    DataException,
    "Unable to convert abc (class java.lang.String) to number",
  );
  assertThrows(
    () => transform("MaskField$Value", { fields: "bool", replacement: "123" }).apply(record),
    DataException,
    "Cannot mask value of type class java.lang.Boolean with custom replacement.",
  );
  assertThrows(
    () => transform("MaskField$Value", { fields: "byte", replacement: "300" }).apply(record),
    DataException,
    "Unable to convert 300",
  );
});

Deno.test("MaskField config: fields must be non-empty, replacement non-empty", () => {
  assertThrows(() => transform("MaskField$Value", { fields: "" }), Error, "Empty list");
  assertThrows(() => transform("MaskField$Value", {}), Error, 'Missing required configuration "fields"');
  assertThrows(
    () => transform("MaskField$Value", { fields: "a", replacement: "" }),
    Error,
    "String must be non-empty",
  );
});
