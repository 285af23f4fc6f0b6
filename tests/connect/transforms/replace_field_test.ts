import { assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException } from "../../../src/connect/errors.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, source, transform } from "./helpers.ts";

// Kafka's ReplaceFieldTest record.
const VALUE = { dont: "whatever", abc: 42, foo: true, etc: "etc" };

Deno.test("ReplaceField$Value schemaless: exclude and renames", () => {
  const t = transform("ReplaceField$Value", { exclude: "dont", renames: "abc:xyz,foo:bar" });
  assertEquals(applied(t, source({ value: VALUE })).value, { xyz: 42, bar: true, etc: "etc" });
});

Deno.test("ReplaceField: exclude wins over include", () => {
  const t = transform("ReplaceField$Value", { include: "abc,foo", exclude: "foo" });
  assertEquals(applied(t, source({ value: VALUE })).value, { abc: 42 });
});

Deno.test("ReplaceField$Value on a Struct: include, renames, schema basics kept", () => {
  const schema = SchemaBuilder.struct().name("com.example.Row").version(3)
    .field("dont", Schema.STRING_SCHEMA).field("abc", Schema.INT32_SCHEMA)
    .field("foo", Schema.BOOLEAN_SCHEMA).field("etc", Schema.STRING_SCHEMA).build();
  const value = new Struct(schema).put("dont", "whatever").put("abc", 42).put("foo", true).put("etc", "etc");
  const t = transform("ReplaceField$Value", { include: "abc,foo", renames: "abc:xyz,foo:bar" });
  const out = applied(t, source({ valueSchema: schema, value }));
  assertEquals(out.valueSchema!.fields().map((f) => f.name), ["xyz", "bar"]);
  assertEquals([out.valueSchema!.name, out.valueSchema!.version], ["com.example.Row", 3]);
  assertEquals([(out.value as Struct).get("xyz"), (out.value as Struct).get("bar")], [42, true]);
});

Deno.test("ReplaceField$Key works on the key and passes tombstones", () => {
  const t = transform("ReplaceField$Key", { exclude: "secret" });
  assertEquals(applied(t, source({ key: { id: 1, secret: "x" } })).key, { id: 1 });
  const tombstone = source({ key: null });
  assertEquals(t.apply(tombstone), tombstone);
});

Deno.test("ReplaceField rejects malformed rename mappings like Java's split", () => {
  assertThrows(
    () => transform("ReplaceField$Value", { renames: "abc" }),
    ConfigException,
    "Invalid rename mapping: abc",
  );
  assertThrows(
    () => transform("ReplaceField$Value", { renames: "a:b:c" }),
    ConfigException,
    "Invalid rename mapping",
  );
  // Java drops trailing empty strings, so "a:b:" is the valid pair a→b.
  const t = transform("ReplaceField$Value", { renames: "a:b:" });
  assertEquals(applied(t, source({ value: { a: 1 } })).value, { b: 1 });
});
