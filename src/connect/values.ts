/**
 * Typing helpers for Connect values, mostly for schemaless data (Kafka's `Values.inferSchema`,
 * `ConnectSchema.schemaType`), plus the INT64 and MAP representation helpers every consumer of data needs.
 *
 * Schemaless values use the JS representations listed in schema.ts. A JS `number` has no width, so an integer
 * number counts as INT64 and any other number as FLOAT64 — the same types Kafka's JsonConverter gives JSON
 * numbers without a schema.
 */
import { type Schema, Schema as Schemas, type SchemaType } from "./schema.ts";
import { SchemaBuilder } from "./schema_builder.ts";
import { isConnectMap, Struct } from "./struct.ts";

export { isConnectMap } from "./struct.ts";

/** The Connect MAP value types: a `Map`, or a plain object when every key is a string. */
export type ConnectMap = Map<unknown, unknown> | Record<string, unknown>;

/**
 * The schema type of a schemaless value (Kafka's `ConnectSchema.schemaType(value.getClass())`), or null when it
 * has none: null/undefined, and logical values (`Date`, `BigDecimal`), which are ambiguous without a schema.
 */
export function schemalessTypeOf(value: unknown): SchemaType | null {
  switch (typeof value) {
    case "string":
      return "STRING";
    case "boolean":
      return "BOOLEAN";
    case "bigint":
      return "INT64";
    case "number":
      return Number.isInteger(value) ? "INT64" : "FLOAT64";
  }
  if (value instanceof Uint8Array) return "BYTES";
  if (Array.isArray(value)) return "ARRAY";
  if (value instanceof Struct) return "STRUCT";
  if (isConnectMap(value)) return "MAP";
  return null;
}

/** Kafka's `Values.inferSchema`: a schema for a schemaless value, or null when none can be inferred. */
export function inferSchema(value: unknown): Schema | null {
  if (value instanceof Struct) return value.schema;
  const type = schemalessTypeOf(value);
  switch (type) {
    case null:
      return null;
    case "ARRAY": {
      const element = commonElementSchema(value as unknown[]);
      return element === null ? null : SchemaBuilder.array(element).build();
    }
    case "MAP": {
      const entries = mapEntries(value as ConnectMap);
      const keys = commonElementSchema(entries.map(([k]) => k));
      const values = commonElementSchema(entries.map(([, v]) => v));
      return keys === null || values === null ? null : SchemaBuilder.map(keys, values).build();
    }
    default:
      return primitiveSchema(type);
  }
}

const REQUIRED_PRIMITIVES: Partial<Record<SchemaType, Schema>> = {
  INT64: Schemas.INT64_SCHEMA,
  FLOAT64: Schemas.FLOAT64_SCHEMA,
  STRING: Schemas.STRING_SCHEMA,
  BOOLEAN: Schemas.BOOLEAN_SCHEMA,
  BYTES: Schemas.BYTES_SCHEMA,
};

function primitiveSchema(type: SchemaType, optional = false): Schema {
  if (optional) return SchemaBuilder.type(type).optional().build();
  return REQUIRED_PRIMITIVES[type] ?? SchemaBuilder.type(type).build();
}

/** Kafka's `SchemaDetector`: one element type for all non-null values (optional if any is null), else null. */
function commonElementSchema(values: readonly unknown[]): Schema | null {
  if (values.length === 0) return null;
  let known: SchemaType | null = null;
  let optional = false;
  for (const value of values) {
    if (value === null || value === undefined) {
      optional = true;
      continue;
    }
    if (inferSchema(value) === null) return null;
    const type = schemalessTypeOf(value);
    if (known === null) known = type;
    else if (known !== type) return null;
  }
  if (known === null || known === "ARRAY" || known === "MAP" || known === "STRUCT") {
    // Kafka builds `SchemaBuilder.type(knownType)`, which cannot express nested element schemas.
    return null;
  }
  return primitiveSchema(known, optional);
}

/** The entries of a Connect MAP value, whichever representation it uses. */
export function mapEntries(value: ConnectMap): [unknown, unknown][] {
  return value instanceof Map ? [...value.entries()] : Object.entries(value);
}

/** Looks a key up in a Connect MAP value (`undefined` when absent). */
export function mapGet(value: ConnectMap, key: unknown): unknown {
  if (value instanceof Map) return value.get(key);
  return typeof key === "string" && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** An INT64 value in its preferred form: a `number` when it is a safe integer, otherwise a `bigint`. */
export function normalizeInt64(value: number | bigint): number | bigint {
  if (typeof value === "number") return value;
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}
