import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { DataException } from "../../../src/connect/errors.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, source, transform } from "./helpers.ts";

Deno.test("ValueToKey schemaless: the key is a map of the listed value fields", () => {
  const out = applied(transform("ValueToKey", { fields: "a,b" }), source({ value: { a: 1, b: 2, c: 3 } }));
  assertEquals(out.key, { a: 1, b: 2 });
  assertEquals(out.keySchema, null);
  assertEquals(out.value, { a: 1, b: 2, c: 3 });
});

Deno.test("ValueToKey with a schema builds an unnamed key struct in the listed order", () => {
  const schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("b", Schema.INT32_SCHEMA)
    .field("c", Schema.INT32_SCHEMA).build();
  const value = new Struct(schema).put("a", 1).put("b", 2).put("c", 3);
  const out = applied(transform("ValueToKey", { fields: "b,a" }), source({ valueSchema: schema, value }));
  const expected = SchemaBuilder.struct().field("b", Schema.INT32_SCHEMA).field("a", Schema.INT32_SCHEMA)
    .build();
  assert(out.keySchema!.equals(expected));
  assert((out.key as Struct).equals(new Struct(expected).put("b", 2).put("a", 1)));
});

Deno.test("ValueToKey: a field the schema lacks is an error; fields must be listed once", () => {
  const schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
  assertThrows(
    () =>
      transform("ValueToKey", { fields: "a,d" }).apply(
        source({ valueSchema: schema, value: new Struct(schema).put("a", 1) }),
      ),
    DataException,
    "Field does not exist: d",
  );
  assertThrows(() => transform("ValueToKey", { fields: "a,a" }), Error, "Duplicate values");
});

Deno.test("ValueToKey rejects a schemaless tombstone, as Kafka does (pair it with RecordIsTombstone)", () => {
  assertThrows(
    () => transform("ValueToKey", { fields: "a" }).apply(source({ value: null })),
    DataException,
    "Only Map objects supported in absence of schema for [copying fields from value to key], found: null",
  );
});
