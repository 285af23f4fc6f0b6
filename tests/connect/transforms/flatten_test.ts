import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { DataException } from "../../../src/connect/errors.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, source, transform } from "./helpers.ts";

Deno.test("Flatten$Value on nested Structs joins names with the delimiter (Kafka's FlattenTest)", () => {
  const leaf = SchemaBuilder.struct().field("int8", Schema.INT8_SCHEMA).field("string", Schema.STRING_SCHEMA)
    .field("array", SchemaBuilder.array(Schema.INT32_SCHEMA).build()).build();
  const mid = SchemaBuilder.struct().field("B", leaf).build();
  const top = SchemaBuilder.struct().name("top").field("A", mid).build();
  const value = new Struct(top).put(
    "A",
    new Struct(mid).put("B", new Struct(leaf).put("int8", 8).put("string", "s").put("array", [1, 2])),
  );
  const out = applied(transform("Flatten$Value", { delimiter: "#" }), source({ valueSchema: top, value }));
  assertEquals(out.valueSchema!.fields().map((f) => f.name), ["A#B#int8", "A#B#string", "A#B#array"]);
  assertEquals(out.valueSchema!.name, "top");
  const v = out.value as Struct;
  assertEquals([v.get("A#B#int8"), v.get("A#B#string"), v.get("A#B#array")], [8, "s", [1, 2]]);
});

Deno.test("Flatten: fields under an optional struct become optional; a null struct gives nulls", () => {
  const inner = SchemaBuilder.struct().optional().field("x", Schema.INT32_SCHEMA).build();
  const top = SchemaBuilder.struct().field("in", inner).field("y", Schema.STRING_SCHEMA).build();
  const out = applied(
    transform("Flatten$Value"),
    source({ valueSchema: top, value: new Struct(top).put("y", "v") }),
  );
  assert(out.valueSchema!.field("in.x")!.schema.isOptional);
  assertEquals([(out.value as Struct).get("in.x"), (out.value as Struct).get("y")], [null, "v"]);
});

Deno.test("Flatten$Key schemaless flattens nested maps, keeps arrays and nulls", () => {
  const key = { A: { B: { int8: 8, arr: [1, { z: 1 }] }, n: null }, top: "t" };
  const out = applied(transform("Flatten$Key"), source({ key }));
  assertEquals(out.key, { "A.B.int8": 8, "A.B.arr": [1, { z: 1 }], "A.n": null, top: "t" });
});

Deno.test("Flatten: MAP fields in a Struct are rejected; tombstones pass", () => {
  const schema = SchemaBuilder.struct().field(
    "m",
    SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build(),
  ).build();
  assertThrows(
    () =>
      transform("Flatten$Value").apply(
        source({ valueSchema: schema, value: new Struct(schema).put("m", {}) }),
      ),
    DataException,
    "Flatten transformation does not support MAP for record with schemas (for field m).",
  );
  const tombstone = source({ value: null });
  assertEquals(transform("Flatten$Value").apply(tombstone), tombstone);
});
