/**
 * Kafka's `Struct` and `ConnectSchema.validateValue`: a record-like value whose fields are fixed by a STRUCT schema.
 *
 * `put` validates each value against its field's schema and throws `DataException` naming the field, with Kafka's
 * wording (`Invalid value: null used for required field: "sys_id", schema type: STRING`). `validate()` checks
 * that every required field without a default has been set.
 */
import { DataException } from "./errors.ts";
import { BigDecimal } from "./big_decimal.ts";
import { valuesEqual } from "./equality.ts";
import { isPlainObject } from "../common/plain_object.ts";
import { DECIMAL_LOGICAL_NAME, TEMPORAL_LOGICAL_NAMES } from "./logical_names.ts";
import { type Field, type Schema, schemaEquals, type SchemaType } from "./schema.ts";

const INT_RANGES: Partial<Record<SchemaType, [number, number]>> = {
  INT8: [-128, 127],
  INT16: [-32768, 32767],
  INT32: [-2147483648, 2147483647],
};
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A short description of a JS value's type for error messages; never the value itself (it may be personal data). */
export function describeValueType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (value instanceof Uint8Array) return "Uint8Array";
  if (typeof value === "object") return (value as object).constructor?.name ?? "object";
  return typeof value;
}

/** True when `value` is a JS representation allowed for a Connect MAP (a `Map` or a plain object). */
export function isConnectMap(value: unknown): value is Map<unknown, unknown> | Record<string, unknown> {
  return value instanceof Map || isPlainObject(value);
}

/** Why `value` does not fit a non-null value of `schema`'s type, or null when it fits (children not checked). */
function typeMismatch(schema: Schema, value: unknown): string | null {
  if (schema.name === DECIMAL_LOGICAL_NAME) {
    return value instanceof BigDecimal ? null : "expected a BigDecimal";
  }
  if (schema.name !== null && TEMPORAL_LOGICAL_NAMES.has(schema.name)) {
    if (!(value instanceof Date)) return "expected a Date";
    return Number.isNaN(value.getTime()) ? "invalid Date" : null;
  }
  switch (schema.type) {
    case "INT8":
    case "INT16":
    case "INT32": {
      if (typeof value !== "number") return "expected a number";
      const [min, max] = INT_RANGES[schema.type]!;
      if (!Number.isInteger(value)) return "expected an integer";
      return value < min || value > max ? `number outside the ${schema.type} range` : null;
    }
    case "INT64":
      if (typeof value === "bigint") {
        return value < INT64_MIN || value > INT64_MAX ? "bigint outside the INT64 range" : null;
      }
      if (typeof value !== "number") return "expected a number or bigint";
      return Number.isSafeInteger(value) ? null : "expected a safe integer (use a bigint beyond 2^53)";
    case "FLOAT32":
    case "FLOAT64":
      return typeof value === "number" ? null : "expected a number";
    case "BOOLEAN":
      return typeof value === "boolean" ? null : "expected a boolean";
    case "STRING":
      return typeof value === "string" ? null : "expected a string";
    case "BYTES":
      return value instanceof Uint8Array ? null : "expected a Uint8Array";
    case "ARRAY":
      return Array.isArray(value) ? null : "expected an array";
    case "MAP":
      return isConnectMap(value) ? null : "expected a Map or a plain object";
    case "STRUCT":
      return value instanceof Struct ? null : "expected a Struct";
  }
}

/**
 * Kafka's `ConnectSchema.validateValue(name, schema, value)`: throws `DataException` unless `value` is a valid
 * value of `schema` (recursively for arrays, maps and structs). `fieldName` only appears in messages.
 */
export function validateValue(schema: Schema, value: unknown, fieldName: string | null = null): void {
  if (value === null || value === undefined) {
    if (schema.isOptional) return;
    throw new DataException(
      `Invalid value: null used for required field: "${fieldName}", schema type: ${schema.type}`,
    );
  }
  const mismatch = typeMismatch(schema, value);
  if (mismatch !== null) {
    const schemaDescription = schema.name !== null ? `schema "${schema.name}"` : "schema";
    throw new DataException(
      `Invalid value for ${schemaDescription} with type ${schema.type}: ${
        describeValueType(value)
      } (${mismatch}) for field: "${fieldName}"`,
    );
  }
  switch (schema.type) {
    case "STRUCT": {
      const struct = value as Struct;
      if (!schemaEquals(schema, struct.schema)) throw new DataException("Struct schemas do not match.");
      struct.validate();
      return;
    }
    case "ARRAY":
      for (const item of value as unknown[]) validateValue(schema.valueSchema(), item, fieldName);
      return;
    case "MAP": {
      const entries = value instanceof Map
        ? value.entries()
        : Object.entries(value as Record<string, unknown>);
      for (const [k, v] of entries) {
        validateValue(schema.keySchema(), k, fieldName);
        validateValue(schema.valueSchema(), v, fieldName);
      }
      return;
    }
  }
}

/**
 * A structured value with the fields of a STRUCT schema (Kafka's `Struct`). Unset fields read as `null`, or as
 * the field's default through `get`.
 *
 * ```ts
 * const schema = SchemaBuilder.struct().name("com.example.Person")
 *   .field("name", Schema.STRING_SCHEMA).field("age", Schema.INT32_SCHEMA).build();
 * const person = new Struct(schema).put("name", "Bobby McGee").put("age", 21);
 * ```
 */
export class Struct {
  readonly schema: Schema;
  readonly #values: unknown[];

  constructor(schema: Schema) {
    if (schema.type !== "STRUCT") throw new DataException(`Not a struct schema: ${schema}`);
    this.schema = schema;
    this.#values = new Array(schema.fields().length).fill(null);
  }

  /** Sets a field, validating the value against the field's schema (throws `DataException` naming the field). */
  put(field: string | Field, value: unknown): this {
    const f = this.#lookup(field);
    validateValue(f.schema, value, f.name);
    this.#values[f.index] = value ?? null;
    return this;
  }

  /** The field's value, or its schema default when the value is null. */
  get(field: string | Field): unknown {
    const f = this.#lookup(field);
    const value = this.#values[f.index];
    return value === null && f.schema.defaultValue !== null ? f.schema.defaultValue : value;
  }

  /** The raw value, ignoring any default (used when `replace.null.with.default=false`). */
  getWithoutDefault(field: string | Field): unknown {
    return this.#values[this.#lookup(field).index];
  }

  getInt8(name: string): number | null {
    return this.#getChecked(name, "INT8") as number | null;
  }
  getInt16(name: string): number | null {
    return this.#getChecked(name, "INT16") as number | null;
  }
  getInt32(name: string): number | null {
    return this.#getChecked(name, "INT32") as number | null;
  }
  /** May be a `number` or a `bigint` (see schema.ts). */
  getInt64(name: string): number | bigint | null {
    return this.#getChecked(name, "INT64") as number | bigint | null;
  }
  getFloat32(name: string): number | null {
    return this.#getChecked(name, "FLOAT32") as number | null;
  }
  getFloat64(name: string): number | null {
    return this.#getChecked(name, "FLOAT64") as number | null;
  }
  getBoolean(name: string): boolean | null {
    return this.#getChecked(name, "BOOLEAN") as boolean | null;
  }
  getString(name: string): string | null {
    return this.#getChecked(name, "STRING") as string | null;
  }
  getBytes(name: string): Uint8Array | null {
    return this.#getChecked(name, "BYTES") as Uint8Array | null;
  }
  getArray<T = unknown>(name: string): T[] | null {
    return this.#getChecked(name, "ARRAY") as T[] | null;
  }
  getMap(name: string): Map<unknown, unknown> | Record<string, unknown> | null {
    return this.#getChecked(name, "MAP") as Map<unknown, unknown> | Record<string, unknown> | null;
  }
  getStruct(name: string): Struct | null {
    return this.#getChecked(name, "STRUCT") as Struct | null;
  }

  /** Checks that every required field without a default is set and every value fits its schema. */
  validate(): void {
    for (const field of this.schema.fields()) {
      const value = this.#values[field.index];
      if (value === null && (field.schema.isOptional || field.schema.defaultValue !== null)) continue;
      validateValue(field.schema, value, field.name);
    }
  }

  /** Kafka's `Struct.equals`: equal schemas and deeply equal raw values. */
  equals(other: unknown): boolean {
    if (this === other) return true;
    if (!(other instanceof Struct) || !schemaEquals(this.schema, other.schema)) return false;
    return this.schema.fields().every((f) => valuesEqual(this.#values[f.index], other.#values[f.index]));
  }

  /** Kafka's format: `Struct{name=Bobby McGee,age=21}` (null fields are left out). */
  toString(): string {
    const parts = this.schema.fields()
      .filter((f) => this.#values[f.index] !== null)
      .map((f) => `${f.name}=${displayValue(this.#values[f.index])}`);
    return `Struct{${parts.join(",")}}`;
  }

  #lookup(field: string | Field): Field {
    if (typeof field !== "string") {
      // A Field from another (equal) schema is looked up by name, as Kafka does via field.index().
      return this.#lookup(field.name);
    }
    const found = this.schema.field(field);
    if (found === null) throw new DataException(`${field} is not a valid field name`);
    return found;
  }

  #getChecked(name: string, type: SchemaType): unknown {
    const field = this.#lookup(name);
    if (field.schema.type !== type) throw new DataException(`Field '${name}' is not of type ${type}`);
    return this.#values[field.index];
  }
}

/** Java-like `toString` of a Connect value for messages and `toString()` (maps as `{k=v}`, lists as `[a, b]`). */
export function displayValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `[${value.length} bytes]`;
  if (value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(displayValue).join(", ")}]`;
  if (value instanceof Map) {
    return `{${[...value].map(([k, v]) => `${displayValue(k)}=${displayValue(v)}`).join(", ")}}`;
  }
  if (isPlainObject(value)) {
    return `{${Object.entries(value).map(([k, v]) => `${k}=${displayValue(v)}`).join(", ")}}`;
  }
  return String(value);
}
