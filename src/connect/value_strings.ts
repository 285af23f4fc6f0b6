/**
 * Connect's string forms of values, written: Kafka's `Values.convertToString`, which `SimpleHeaderConverter`
 * (Connect's default header converter) and the StringConverter use. Reading them back is value_string_parser.ts.
 *
 * Primitives are written as text (`12`, `1.5`, `true`), strings raw at top level and quoted inside containers,
 * bytes as base64, lists as `[a,b]`, maps as `{k:v}`, structs as `{"field":value}`, and Dates as ISO-8601
 * (`HH:mm:ss.SSS'Z'` before the second day of the epoch, `yyyy-MM-dd` at midnight, else a timestamp), in UTC
 * (Kafka uses the JVM's default zone, normally UTC).
 */
import { encodeBase64 } from "./base64.ts";
import { BigDecimal } from "./big_decimal.ts";
import { DataException } from "./errors.ts";
import { formatJavaDouble, formatJavaFloat } from "./java_format.ts";
import { MILLIS_PER_DAY } from "./logical.ts";
import { type Schema } from "./schema.ts";
import { describeValueType, isConnectMap, Struct } from "./struct.ts";

/** Kafka's `Values.convertToString`: null for null, otherwise the value's string form (see module comment). */
export function convertToString(schema: Schema | null, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return appendValue(value, false, schema);
}

function escapeEmbedded(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
}

function formatNumber(value: number, schema: Schema | null): string {
  switch (schema?.type) {
    case "FLOAT32":
      return formatJavaFloat(value);
    case "FLOAT64":
      return formatJavaDouble(value);
    case "INT8":
    case "INT16":
    case "INT32":
    case "INT64":
      return String(value);
  }
  return Number.isSafeInteger(value) ? String(value) : formatJavaDouble(value);
}

/** Kafka's `Values.dateFormatFor` + `format`, in UTC. */
function formatConnectDate(value: Date): string {
  const iso = value.toISOString(); // yyyy-MM-ddTHH:mm:ss.SSSZ
  const millis = value.getTime();
  if (millis < MILLIS_PER_DAY) return iso.slice(11);
  if (millis % MILLIS_PER_DAY === 0) return iso.slice(0, 10);
  return iso;
}

function childSchema(schema: Schema | null, type: "ARRAY" | "MAP", which: "key" | "value"): Schema | null {
  if (schema === null || schema.type !== type) return null;
  return which === "key" ? schema.keySchema() : schema.valueSchema();
}

function appendValue(value: unknown, embedded: boolean, schema: Schema | null): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") return formatNumber(value, schema);
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof BigDecimal) return value.toString();
  if (typeof value === "string") return embedded ? `"${escapeEmbedded(value)}"` : value;
  if (value instanceof Uint8Array) {
    const encoded = encodeBase64(value);
    return embedded ? `"${encoded}"` : encoded;
  }
  if (Array.isArray(value)) {
    const elementSchema = childSchema(schema, "ARRAY", "value");
    return `[${value.map((item) => appendValue(item, true, elementSchema)).join(",")}]`;
  }
  if (value instanceof Struct) {
    const fields = value.schema.fields().map((f) =>
      `${appendValue(f.name, true, null)}:${appendValue(value.get(f), true, f.schema)}`
    );
    return `{${fields.join(",")}}`;
  }
  if (isConnectMap(value)) {
    const keySchema = childSchema(schema, "MAP", "key");
    const valueSchema = childSchema(schema, "MAP", "value");
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
    return `{${
      entries.map(([k, v]) => `${appendValue(k, true, keySchema)}:${appendValue(v, true, valueSchema)}`).join(
        ",",
      )
    }}`;
  }
  if (value instanceof Date) return formatConnectDate(value);
  throw new DataException(`Failed to serialize unexpected value type ${describeValueType(value)}`);
}
