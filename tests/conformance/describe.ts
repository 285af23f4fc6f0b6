/**
 * Our Connect values in the "described" JSON form ConnectConformance.java writes for Java's (see its describe()):
 * every value tagged with the Java type it stands for, so `{"int8":5}` and `{"int64":"5"}` differ, floats are
 * compared as the doubles Java holds, Decimals by Java's BigDecimal.toString(), dates by epoch millis.
 *
 * Map entries are sorted on both sides by `normalizeDescription`: Connect reads JSON maps into a HashMap, whose
 * order is an accident of hashing, not something either side promises.
 */
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import { encodeBase64 } from "../../src/connect/base64.ts";
import type { ConnectRecord } from "../../src/connect/record.ts";
import type { Schema } from "../../src/connect/schema.ts";
import { Struct } from "../../src/connect/struct.ts";
import { mapEntries, schemalessTypeOf } from "../../src/connect/values.ts";
import type { ConnectMap } from "../../src/connect/values.ts";

export function describeSchema(schema: Schema | null): unknown {
  if (schema === null) return null;
  const node: Record<string, unknown> = { type: schema.type.toLowerCase(), optional: schema.isOptional };
  if (schema.name !== null) node.name = schema.name;
  if (schema.version !== null) node.version = schema.version;
  if (schema.doc !== null) node.doc = schema.doc;
  if (schema.parameters !== null && schema.parameters.size > 0) {
    node.parameters = Object.fromEntries(schema.parameters);
  }
  if (schema.defaultValue !== null && schema.defaultValue !== undefined) {
    node.default = describeValue(schema, schema.defaultValue);
  }
  if (schema.type === "STRUCT") {
    node.fields = schema.fields().map((f) => ({ name: f.name, schema: describeSchema(f.schema) }));
  } else if (schema.type === "ARRAY") {
    node.items = describeSchema(schema.valueSchema());
  } else if (schema.type === "MAP") {
    node.keys = describeSchema(schema.keySchema());
    node.values = describeSchema(schema.valueSchema());
  }
  return node;
}

/** A value with the Java type its schema (or, schemaless, its JS type) stands for. */
export function describeValue(schema: Schema | null, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return { date: value.getTime() };
  if (value instanceof BigDecimal) return { decimal: value.toString() };
  if (value instanceof Struct) {
    return {
      struct: Object.fromEntries(
        value.schema.fields().map((f) => [f.name, describeValue(f.schema, value.get(f.name))]),
      ),
    };
  }
  const type = schema?.type ?? schemalessTypeOf(value);
  switch (type) {
    case "INT8":
    case "INT16":
    case "INT32":
      return { [type.toLowerCase()]: Number(value) };
    case "INT64":
      return { int64: String(value) };
    case "FLOAT32":
      return { float32: Math.fround(value as number) };
    case "FLOAT64":
      return { float64: value };
    case "BOOLEAN":
      return { boolean: value };
    case "STRING":
      return { string: value };
    case "BYTES":
      return { bytes: encodeBase64(value as Uint8Array) };
    case "ARRAY":
      return {
        array: (value as unknown[]).map((item) => describeValue(schema?.valueSchema() ?? null, item)),
      };
    case "MAP":
      return {
        map: mapEntries(value as ConnectMap).map(([k, v]) => [
          describeValue(schema?.keySchema() ?? null, k),
          describeValue(schema?.valueSchema() ?? null, v),
        ]),
      };
    default:
      return { unknown: `${typeof value}: ${String(value)}` };
  }
}

export function describe(schema: Schema | null, value: unknown): unknown {
  return { schema: describeSchema(schema), value: describeValue(schema, value) };
}

export function describeRecord(record: ConnectRecord<any>): unknown {
  return {
    topic: record.topic,
    partition: record.kafkaPartition,
    timestamp: record.timestamp,
    key: describe(record.keySchema, record.key),
    value: describe(record.valueSchema, record.value),
    headers: [...record.headers].map((h) => ({ key: h.key, value: describe(h.schema, h.value) })),
  };
}

/** Sorts map entries (recursively) so two descriptions compare equal whatever order their maps iterate in. */
export function normalizeDescription(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalizeDescription);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "map" && Array.isArray(v)) {
      out[k] = (v as unknown[][]).map((pair) => pair.map(normalizeDescription))
        .sort((a, b) => JSON.stringify(a[0]).localeCompare(JSON.stringify(b[0])));
    } else {
      out[k] = normalizeDescription(v);
    }
  }
  return out;
}

/**
 * The one known difference, by design of our data model (src/connect/values.ts): a JS number has no width, so a
 * schemaless JSON number with a zero fraction (`10.0`), which Connect reads as a Double, is an integer for us.
 * Both sides' descriptions are brought to the same form for such numbers; every other value is compared as is.
 */
export function wholeDoublesAsNumbers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(wholeDoublesAsNumbers);
  if (node === null || typeof node !== "object") return node;
  const entries = Object.entries(node);
  if (entries.length === 1 && entries[0][0] === "float64" && Number.isInteger(entries[0][1])) {
    return { int64: String(entries[0][1]) };
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, wholeDoublesAsNumbers(v)]));
}
