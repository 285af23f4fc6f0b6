import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException } from "../../../src/connect/errors.ts";
import { ConnectHeaders } from "../../../src/connect/headers.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, source, transform } from "./helpers.ts";

function headerList(headers: ConnectHeaders): [string, unknown][] {
  return [...headers].map((h) => [h.key, h.value]);
}

Deno.test("HeaderFrom$Value schemaless copy keeps fields; move removes them", () => {
  const value = { field1: "v1", field2: 2, other: true };
  const record = source({ value, headers: new ConnectHeaders().addString("existing", "x") });
  const props = { fields: "field1,field2", headers: "h1,h2", operation: "copy" };
  const copied = applied(transform("HeaderFrom$Value", props), record);
  assertEquals(copied.value, value);
  assertEquals(headerList(copied.headers), [["existing", "x"], ["h1", "v1"], ["h2", 2]]);
  assertEquals(
    headerList(record.headers),
    [["existing", "x"]],
    "the original record's headers are untouched",
  );
  const moved = applied(transform("HeaderFrom$Value", { ...props, operation: "move" }), record);
  assertEquals(moved.value, { other: true });
});

Deno.test("HeaderFrom$Key with schema: move drops the field from the schema; headers carry field schemas", () => {
  const schema = SchemaBuilder.struct().name("k").field("id", Schema.INT64_SCHEMA).field(
    "region",
    Schema.STRING_SCHEMA,
  ).build();
  const key = new Struct(schema).put("id", 7).put("region", "eu");
  const out = applied(
    transform("HeaderFrom$Key", { fields: "region", headers: "region", operation: "move" }),
    source({ keySchema: schema, key }),
  );
  assertEquals(out.keySchema!.fields().map((f) => f.name), ["id"]);
  assertEquals(out.keySchema!.name, "k");
  assertEquals((out.key as Struct).get("id"), 7);
  const header = out.headers.lastWithName("region")!;
  assertEquals(header.value, "eu");
  assert(header.schema!.equals(Schema.STRING_SCHEMA));
});

Deno.test("HeaderFrom config: same number of fields and headers, operation move|copy", () => {
  assertThrows(
    () => transform("HeaderFrom$Value", { fields: "a,b", headers: "h", operation: "copy" }),
    ConfigException,
    "'fields' config must have the same number of elements as 'headers' config.",
  );
  assertThrows(
    () => transform("HeaderFrom$Value", { fields: "a", headers: "h", operation: "cut" }),
    ConfigException,
    "String must be one of: move, copy",
  );
});

Deno.test("InsertHeader types the literal like Kafka's Values.parseString", () => {
  const cases: [string, string, unknown][] = [
    ["source-a", "STRING", "source-a"],
    ["42", "INT8", 42],
    ["40000", "INT32", 40000],
    ["true", "BOOLEAN", true],
    ["1.5", "FLOAT32", 1.5],
  ];
  for (const [literal, type, value] of cases) {
    const out = applied(transform("InsertHeader", { header: "h", "value.literal": literal }), source());
    const header = out.headers.lastWithName("h")!;
    assertEquals([header.schema!.type, header.value], [type, value], literal);
  }
  assertThrows(
    () => transform("InsertHeader", { header: "", "value.literal": "x" }),
    ConfigException,
    "String must be non-empty",
  );
});

Deno.test("DropHeaders removes every header with a listed key", () => {
  const headers = new ConnectHeaders().addString("a", "1").addString("b", "2").addString("a", "3").addString(
    "c",
    "4",
  );
  const out = applied(transform("DropHeaders", { headers: "a,c" }), source({ headers }));
  assertEquals(headerList(out.headers), [["b", "2"]]);
  assertThrows(() => transform("DropHeaders", { headers: "" }), ConfigException, "Empty list");
});
