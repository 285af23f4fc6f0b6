/**
 * Our JsonConverter against Kafka Connect's own (connect-json from Maven Central, run by ConnectConformance.java)
 * for one shared table of records: every schema type, the logical types, structs, arrays, maps (string and other
 * keys), optional fields, nulls and defaults.
 *
 * Each record is written in Connect's envelope form; both sides read it with their JsonConverter
 * (schemas.enable=true), then write it with schemas.enable true and false and decimal.format BASE64 and NUMERIC:
 *  - the bytes must be the same (for maps of several entries, after ordering the JSON object's keys: Connect
 *    iterates a HashMap);
 *  - our reader reads Connect's bytes back to the same described values Connect's reader gives.
 */
import { assertEquals } from "../support/assert.ts";
import { JsonConverter } from "../../src/connect/converters/json/json_converter.ts";
import { canonicalJson } from "../../src/runtime/offsets/offset_key.ts";
import { startConnectHarness } from "./connect_harness.ts";
import { describe, normalizeDescription, wholeDoublesAsNumbers } from "./describe.ts";

const DECIMAL = "org.apache.kafka.connect.data.Decimal";
const DATE = "org.apache.kafka.connect.data.Date";
const TIME = "org.apache.kafka.connect.data.Time";
const TIMESTAMP = "org.apache.kafka.connect.data.Timestamp";

/** [name, schema, payload, maps of several entries (compare keys unordered)] */
const CASES: Array<[string, unknown, unknown, boolean?]> = [
  ["int8", { type: "int8" }, -128],
  ["int16", { type: "int16" }, 32767],
  ["int32", { type: "int32" }, -2147483648],
  ["int64 small", { type: "int64" }, 42],
  ["int64 max", { type: "int64" }, 9223372036854775807n],
  ["int64 min", { type: "int64" }, -9223372036854775808n],
  ["float32", { type: "float" }, 3.4028234663852886e38],
  ["float32 fraction", { type: "float" }, 0.1],
  ["float64", { type: "double" }, 1e-300],
  ["float64 whole", { type: "double" }, 10],
  ["float64 negative zero", { type: "double" }, -0.0],
  ["float64 large", { type: "double" }, 1.7976931348623157e308],
  ["boolean", { type: "boolean" }, true],
  ["string", { type: "string" }, 'héllo "quoted" \\ / \u0001 \t\n 😀 \u2028'],
  ["lone surrogate", { type: "string" }, "half \ud800 pair"],
  ["bytes", { type: "bytes" }, "AAEC/w=="],
  ["optional null", { type: "string", optional: true }, null],
  ["default used for null", { type: "int32", optional: true, default: 7 }, null],
  ["decimal", { type: "bytes", name: DECIMAL, parameters: { scale: "2" } }, "AN4="],
  ["decimal negative", { type: "bytes", name: DECIMAL, parameters: { scale: "3" } }, "/zk="],
  ["decimal scale 0", { type: "bytes", name: DECIMAL, parameters: { scale: "0" } }, "Dw=="],
  ["date", { type: "int32", name: DATE, version: 1 }, 19000],
  ["time", { type: "int32", name: TIME, version: 1 }, 45296789],
  ["timestamp", { type: "int64", name: TIMESTAMP, version: 1 }, 1700000000123],
  ["timestamp before 1970", { type: "int64", name: TIMESTAMP, version: 1 }, -86400001],
  ["array of int32", { type: "array", items: { type: "int32" } }, [1, 2, 3]],
  ["array of optional strings", { type: "array", items: { type: "string", optional: true } }, ["a", null]],
  ["empty array", { type: "array", items: { type: "int64" } }, []],
  ["map one entry", { type: "map", keys: { type: "string" }, values: { type: "int32" } }, { a: 1 }],
  ["map several entries", { type: "map", keys: { type: "string" }, values: { type: "int64" } }, {
    a: 1,
    b: 2,
    zz: 3,
  }, true],
  ["map int keys one entry", { type: "map", keys: { type: "int32" }, values: { type: "string" } }, [[
    5,
    "five",
  ]]],
  [
    "map int keys several",
    { type: "map", keys: { type: "int32" }, values: { type: "string" } },
    [[1, "one"], [5, "five"]], // ascending: the order Java's HashMap iterates small Integer keys in
  ],
  [
    "struct of everything",
    {
      type: "struct",
      name: "com.example.Row",
      version: 3,
      doc: "a row",
      fields: [
        { field: "i8", type: "int8" },
        { field: "i64", type: "int64" },
        { field: "f32", type: "float" },
        { field: "f64", type: "double" },
        { field: "b", type: "boolean" },
        { field: "s", type: "string", optional: true },
        { field: "missing", type: "string", optional: true },
        { field: "dflt", type: "string", optional: true, default: "dv" },
        { field: "raw", type: "bytes" },
        { field: "amount", type: "bytes", name: DECIMAL, parameters: { scale: "2" } },
        { field: "day", type: "int32", name: DATE, version: 1, optional: true },
        { field: "at", type: "int64", name: TIMESTAMP, version: 1 },
        { field: "tags", type: "array", items: { type: "string" } },
        { field: "attrs", type: "map", keys: { type: "string" }, values: { type: "string" } },
        {
          field: "inner",
          type: "struct",
          optional: true,
          fields: [{ field: "x", type: "int32" }, { field: "y", type: "double", optional: true }],
        },
      ],
    },
    {
      i8: 1,
      i64: 1234567890123,
      f32: 1.5,
      f64: 2.25,
      b: false,
      s: "x",
      missing: null,
      dflt: null,
      raw: "aGk=",
      amount: "MDk=",
      day: 19500,
      at: 1700000000000,
      tags: ["a", "b"],
      attrs: { k: "v" },
      inner: { x: 7, y: null },
    },
  ],
  ["null struct optional", { type: "struct", optional: true, fields: [{ field: "a", type: "int32" }] }, null],
  ["schemaless null", null, null],
];

/** The envelope text; bigint payloads are written as exact JSON integers. */
function envelope(schema: unknown, payload: unknown): string {
  return JSON.stringify({ schema, payload }, (_k, v) => typeof v === "bigint" ? `@@${v}@@` : v)
    .replace(/"@@(-?\d+)@@"/g, "$1");
}

const CONFIGS: Record<string, string>[] = [
  { "schemas.enable": "true" },
  { "schemas.enable": "false" },
  { "schemas.enable": "true", "decimal.format": "NUMERIC" },
  { "schemas.enable": "false", "decimal.format": "NUMERIC" },
];

function ourConverter(config: Record<string, string>): JsonConverter {
  const converter = new JsonConverter();
  converter.configure({ "converter.type": "value", ...config }, false);
  return converter;
}

const text = (bytes: Uint8Array | null) => bytes === null ? null : new TextDecoder().decode(bytes);
const bytes = (s: string | null) => s === null ? null : new TextEncoder().encode(s);

Deno.test("JsonConverter writes Connect's bytes and reads Connect's bytes back, for every schema type", async (t) => {
  await using connect = await startConnectHarness();
  const reader = ourConverter({ "schemas.enable": "true" });
  for (const [name, schema, payload, unorderedMaps] of CASES) {
    await t.step(name, async () => {
      const input = envelope(schema, payload);
      const ours = reader.toConnectData("t", bytes(input));
      const theirs = await connect.request({ op: "read", json: input, config: { "schemas.enable": "true" } });
      assertEquals(
        normalizeDescription(describe(ours.schema, ours.value)),
        normalizeDescription(theirs.read),
      );
      for (const config of CONFIGS) {
        const converter = ourConverter(config);
        const expected = await connect.request({ op: "convert", envelope: input, config });
        const written = text(converter.fromConnectData("t", ours.schema, ours.value));
        const where = `${name} with ${JSON.stringify(config)}`;
        if (unorderedMaps && written !== null && expected.json !== null) {
          assertEquals(canonicalJson(JSON.parse(written)), canonicalJson(JSON.parse(expected.json)), where);
        } else {
          assertEquals(written, expected.json, where);
        }
        const readBack = converter.toConnectData("t", bytes(expected.json));
        const known = config["schemas.enable"] === "false" ? wholeDoublesAsNumbers : (d: unknown) => d;
        assertEquals(
          known(normalizeDescription(describe(readBack.schema, readBack.value))),
          known(normalizeDescription(expected.read)),
          `reading Connect's bytes back: ${where}`,
        );
      }
    });
  }
});

Deno.test("JsonConverter reads schemaless JSON like Connect: integers as int64, fractions as float64", async (t) => {
  await using connect = await startConnectHarness();
  const reader = ourConverter({ "schemas.enable": "false" });
  const documents = [
    `{"a":1,"b":2.5,"c":"s","d":true,"e":null,"f":[1,"x",{"g":-3}]}`,
    `9223372036854775807`,
    `-1.5e-7`,
    `"just a string"`,
    `[]`,
    `{}`,
  ];
  for (const json of documents) {
    await t.step(json, async () => {
      const ours = reader.toConnectData("t", bytes(json));
      const theirs = await connect.request({ op: "read", json, config: { "schemas.enable": "false" } });
      assertEquals(
        normalizeDescription(describe(ours.schema, ours.value)),
        normalizeDescription(theirs.read),
      );
    });
  }
});
