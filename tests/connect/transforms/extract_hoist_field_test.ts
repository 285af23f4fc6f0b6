import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException, DataException } from "../../../src/connect/errors.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { SingleFieldPath } from "../../../src/connect/transforms/field_path.ts";
import { applied, source, transform } from "./helpers.ts";

Deno.test("ExtractField$Key schemaless and with schema (Kafka's ExtractFieldTest)", () => {
  const t = transform("ExtractField$Key", { field: "magic" });
  assertEquals(applied(t, source({ key: { magic: 42 } })).key, 42);
  const schema = SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).build();
  const out = applied(t, source({ keySchema: schema, key: new Struct(schema).put("magic", 42) }));
  assertEquals(out.key, 42);
  assert(out.keySchema!.equals(Schema.INT32_SCHEMA));
});

Deno.test("ExtractField passes null through; a missing schemaless entry extracts null", () => {
  const t = transform("ExtractField$Value", { field: "magic" });
  assertEquals(applied(t, source({ value: null })).value, null);
  assertEquals(applied(t, source({ value: { other: 1 } })).value, null);
});

Deno.test("ExtractField: a field the schema lacks is 'Unknown field'", () => {
  const schema = SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).build();
  assertThrows(
    () =>
      transform("ExtractField$Value", { field: "nope" }).apply(
        source({ valueSchema: schema, value: new Struct(schema).put("magic", 1) }),
      ),
    DataException,
    "Unknown field: nope",
  );
});

Deno.test("ExtractField V1 reads dotted names literally; V2 follows nested paths", () => {
  const v1 = transform("ExtractField$Value", { field: "a.b" });
  assertEquals(applied(v1, source({ value: { "a.b": 1, a: { b: 2 } } })).value, 1);
  const v2 = transform("ExtractField$Value", { field: "a.b", "field.syntax.version": "v2" });
  assertEquals(applied(v2, source({ value: { "a.b": 1, a: { b: 2 } } })).value, 2);
  const inner = SchemaBuilder.struct().field("b", Schema.STRING_SCHEMA).build();
  const outer = SchemaBuilder.struct().field("a", inner).build();
  const out = applied(
    v2,
    source({ valueSchema: outer, value: new Struct(outer).put("a", new Struct(inner).put("b", "x")) }),
  );
  assertEquals([out.value, out.valueSchema!.type], ["x", "STRING"]);
});

Deno.test("SingleFieldPath V2 parsing: backticks, escapes, trailing dot, unclosed backtick", () => {
  assertEquals(new SingleFieldPath("`foo.bar`.baz", "V2").steps, ["foo.bar", "baz"]);
  assertEquals(new SingleFieldPath("a.`b\\`.c`", "V2").steps, ["a", "b`.c"]);
  assertEquals(new SingleFieldPath("a.", "V2").steps, ["a", ""]);
  assertEquals(new SingleFieldPath("a.b", "V1").steps, ["a.b"]);
  assertThrows(
    () => new SingleFieldPath("`a.b", "V2"),
    ConfigException,
    "Incomplete backtick pair in path: [`a.b]",
  );
});

Deno.test("HoistField$Value wraps a schemaless value in a one-entry map", () => {
  const t = transform("HoistField$Value", { field: "magic" });
  assertEquals(applied(t, source({ value: 42 })).value, { magic: 42 });
});

Deno.test("HoistField$Key wraps a value with schema in an unnamed single-field struct", () => {
  const t = transform("HoistField$Key", { field: "magic" });
  const out = applied(t, source({ keySchema: Schema.INT32_SCHEMA, key: 42 }));
  const expected = SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).build();
  assert(out.keySchema!.equals(expected));
  assertEquals(out.keySchema!.name, null);
  assertEquals((out.key as Struct).get("magic"), 42);
});
