import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException, DataException } from "../../../src/connect/errors.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, source, transform } from "./helpers.ts";

Deno.test("SetSchemaMetadata$Value sets name and version and rebuilds the Struct on the new schema", () => {
  const schema = SchemaBuilder.struct().name("old").version(1).doc("d").field("a", Schema.INT32_SCHEMA)
    .build();
  const value = new Struct(schema).put("a", 1);
  const out = applied(
    transform("SetSchemaMetadata$Value", { "schema.name": "foo", "schema.version": "42" }),
    source({ valueSchema: schema, value }),
  );
  assertEquals([out.valueSchema!.name, out.valueSchema!.version, out.valueSchema!.doc], ["foo", 42, "d"]);
  assert((out.value as Struct).schema === out.valueSchema, "the struct carries the new schema");
  assertEquals((out.value as Struct).get("a"), 1);
});

Deno.test("SetSchemaMetadata$Key sets only what is configured, on any schema type", () => {
  const out = applied(
    transform("SetSchemaMetadata$Key", { "schema.version": "2" }),
    source({ keySchema: SchemaBuilder.string().name("keep").build(), key: "k" }),
  );
  assertEquals([out.keySchema!.name, out.keySchema!.version, out.key], ["keep", 2, "k"]);
});

Deno.test("SetSchemaMetadata needs a schema and at least one setting", () => {
  assertThrows(
    () => transform("SetSchemaMetadata$Value", { "schema.name": "x" }).apply(source({ value: { a: 1 } })),
    DataException,
    "Schema required for [updating schema metadata]",
  );
  assertThrows(
    () => transform("SetSchemaMetadata$Value", {}),
    ConfigException,
    "Neither schema name nor version configured",
  );
  assertThrows(
    () => transform("SetSchemaMetadata$Value", { "schema.version": "one" }),
    ConfigException,
    "Invalid value one for configuration schema.version: Not a number of type INT",
  );
});
