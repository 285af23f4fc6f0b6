/**
 * The Connect schema: Kafka's `org.apache.kafka.connect.data.Schema`, `ConnectSchema` and `Field`.
 *
 * A schema is immutable; build one with `SchemaBuilder` (schema_builder.ts) or use the constants on `Schema`
 * (`Schema.STRING_SCHEMA`, `Schema.OPTIONAL_INT64_SCHEMA`, ...), exactly as in Java.
 *
 * How Connect values are represented in JavaScript (checked by `validateValue` in struct.ts):
 *
 * | Schema type        | JS value                                                                                |
 * |--------------------|-----------------------------------------------------------------------------------------|
 * | INT8, INT16, INT32 | `number` (an integer within the type's range)                                           |
 * | INT64              | `number` (safe integer) or `bigint` (within the signed 64-bit range)                    |
 * | FLOAT32, FLOAT64   | `number` (FLOAT32 values are rounded with `Math.fround` when serialised)                |
 * | BOOLEAN            | `boolean`                                                                               |
 * | STRING             | `string`                                                                                |
 * | BYTES              | `Uint8Array`                                                                            |
 * | ARRAY              | JS array                                                                                |
 * | MAP                | `Map` (any key type) or a plain object (string keys)                                    |
 * | STRUCT             | `Struct` (struct.ts)                                                                    |
 * | Decimal logical    | `BigDecimal` (big_decimal.ts): exact `bigint` unscaled value and scale, never a float   |
 * | Timestamp/Date/Time logical | JS `Date` (UTC; see logical.ts)                                                |
 *
 * INT64 accepts both `number` and `bigint` because most int64 values (counts, epoch millis, offsets) fit in a JS
 * number and are far more convenient there, while full 64-bit values (e.g. 9223372036854775807) must survive
 * exactly. Producers of data (converters) give a `number` when the value is a safe integer and a `bigint` otherwise;
 * serialisation is always exact. Readers that need one representation convert (`BigInt(value)`, or
 * `normalizeInt64` in values.ts for the preferred form).
 *
 * Absent metadata is `null` (not `undefined`), mirroring Java: a `defaultValue` of `null` means "no default".
 */
import { DataException } from "./errors.ts";
import { valuesEqual } from "./equality.ts";

/** Kafka's `Schema.Type`. */
export type SchemaType =
  | "INT8"
  | "INT16"
  | "INT32"
  | "INT64"
  | "FLOAT32"
  | "FLOAT64"
  | "BOOLEAN"
  | "STRING"
  | "BYTES"
  | "ARRAY"
  | "MAP"
  | "STRUCT";

/** Every schema type, in Kafka's declaration order. */
export const SCHEMA_TYPES: readonly SchemaType[] = [
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "FLOAT32",
  "FLOAT64",
  "BOOLEAN",
  "STRING",
  "BYTES",
  "ARRAY",
  "MAP",
  "STRUCT",
];

/**
 * A Connect schema (read-only view). Metadata are properties; the accessors that only make sense for some types
 * are methods that throw `DataException` on the wrong type, as in Kafka.
 */
export interface Schema {
  readonly type: SchemaType;
  readonly isOptional: boolean;
  /** The default value, already in its logical form (e.g. a `Date` for Timestamp); `null` = no default. */
  readonly defaultValue: unknown;
  /** Schema name, e.g. `org.apache.kafka.connect.data.Decimal` or a record name; `null` if unnamed. */
  readonly name: string | null;
  readonly version: number | null;
  readonly doc: string | null;
  /** String parameters in insertion order (Decimal keeps its `scale` here); `null` if none were set. */
  readonly parameters: ReadonlyMap<string, string> | null;
  /** STRUCT only: the fields in order. */
  fields(): readonly Field[];
  /** STRUCT only: the named field, or `null` when there is none. */
  field(name: string): Field | null;
  /** MAP only. */
  keySchema(): Schema;
  /** ARRAY and MAP only: the element / value schema. */
  valueSchema(): Schema;
  /** Kafka's `Schema.equals`: same type, optionality, default, name, version, doc, parameters and children. */
  equals(other: unknown): boolean;
  toString(): string;
}

/** A field of a STRUCT schema: its name, position and schema. */
export class Field {
  constructor(readonly name: string, readonly index: number, readonly schema: Schema) {}

  equals(other: unknown): boolean {
    return other instanceof Field && other.name === this.name && other.index === this.index &&
      schemaEquals(this.schema, other.schema);
  }

  toString(): string {
    return `Field{name=${this.name}, index=${this.index}, schema=${this.schema}}`;
  }
}

/** What `ConnectSchema` is built from; `SchemaBuilder` fills it in. */
export interface ConnectSchemaInit {
  type: SchemaType;
  isOptional?: boolean;
  defaultValue?: unknown;
  name?: string | null;
  version?: number | null;
  doc?: string | null;
  parameters?: ReadonlyMap<string, string> | null;
  /** STRUCT: the fields, in order (their `index` must match their position). */
  fields?: readonly Field[];
  keySchema?: Schema | null;
  valueSchema?: Schema | null;
}

/** The immutable schema implementation (Kafka's `ConnectSchema`). Prefer `SchemaBuilder` to calling this directly. */
export class ConnectSchema implements Schema {
  readonly type: SchemaType;
  readonly isOptional: boolean;
  readonly defaultValue: unknown;
  readonly name: string | null;
  readonly version: number | null;
  readonly doc: string | null;
  readonly parameters: ReadonlyMap<string, string> | null;
  readonly #fields: readonly Field[] | null;
  readonly #fieldsByName: ReadonlyMap<string, Field> | null;
  readonly #keySchema: Schema | null;
  readonly #valueSchema: Schema | null;

  constructor(init: ConnectSchemaInit) {
    this.type = init.type;
    this.isOptional = init.isOptional ?? false;
    this.defaultValue = init.defaultValue ?? null;
    this.name = init.name ?? null;
    this.version = init.version ?? null;
    this.doc = init.doc ?? null;
    this.parameters = init.parameters ? new Map(init.parameters) : null;
    this.#fields = init.type === "STRUCT" ? Object.freeze([...(init.fields ?? [])]) : null;
    this.#fieldsByName = this.#fields ? new Map(this.#fields.map((f) => [f.name, f])) : null;
    this.#keySchema = init.keySchema ?? null;
    this.#valueSchema = init.valueSchema ?? null;
  }

  fields(): readonly Field[] {
    if (this.#fields === null) throw new DataException("Cannot list fields on non-struct type");
    return this.#fields;
  }

  field(name: string): Field | null {
    if (this.#fieldsByName === null) throw new DataException("Cannot look up fields on non-struct type");
    return this.#fieldsByName.get(name) ?? null;
  }

  keySchema(): Schema {
    if (this.type !== "MAP" || this.#keySchema === null) {
      throw new DataException("Cannot look up key schema on non-map type");
    }
    return this.#keySchema;
  }

  valueSchema(): Schema {
    if ((this.type !== "MAP" && this.type !== "ARRAY") || this.#valueSchema === null) {
      throw new DataException("Cannot look up value schema on non-array and non-map type");
    }
    return this.#valueSchema;
  }

  equals(other: unknown): boolean {
    return schemaEquals(this, other);
  }

  /** Kafka's format: `Schema{name:TYPE}` or `Schema{TYPE}`. */
  toString(): string {
    return this.name !== null ? `Schema{${this.name}:${this.type}}` : `Schema{${this.type}}`;
  }
}

function parametersEqual(
  a: ReadonlyMap<string, string> | null,
  b: ReadonlyMap<string, string> | null,
): boolean {
  if (a === null || b === null) return a === b;
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && "type" in value && "isOptional" in value &&
    typeof (value as Schema).fields === "function";
}

/**
 * Kafka's `ConnectSchema.equals`, usable on any `Schema` implementation (and `null`); `ignoreOptional` compares
 * the two schemas' own optionality out (Confluent's `nonOptional` keys), not their children's.
 */
export function schemaEquals(a: Schema | null, b: unknown, ignoreOptional = false): boolean {
  if (a === b) return true;
  if (a === null || !isSchema(b)) return false;
  if (
    a.type !== b.type || (!ignoreOptional && a.isOptional !== b.isOptional) || a.name !== b.name ||
    a.version !== b.version ||
    a.doc !== b.doc || !parametersEqual(a.parameters, b.parameters) ||
    !valuesEqual(a.defaultValue, b.defaultValue)
  ) {
    return false;
  }
  switch (a.type) {
    case "STRUCT": {
      const af = a.fields();
      const bf = b.fields();
      return af.length === bf.length && af.every((f, i) => f.equals(bf[i]));
    }
    case "MAP":
      return schemaEquals(a.keySchema(), b.keySchema()) && schemaEquals(a.valueSchema(), b.valueSchema());
    case "ARRAY":
      return schemaEquals(a.valueSchema(), b.valueSchema());
    default:
      return true;
  }
}

function primitive(type: SchemaType, isOptional: boolean): Schema {
  return new ConnectSchema({ type, isOptional });
}

/**
 * Kafka's predefined schemas (`Schema.INT8_SCHEMA`, `Schema.OPTIONAL_STRING_SCHEMA`, ...). Declared with the same
 * name as the `Schema` interface so that code reads like Kafka's: `Schema.STRING_SCHEMA`.
 */
export const Schema = Object.freeze({
  INT8_SCHEMA: primitive("INT8", false),
  INT16_SCHEMA: primitive("INT16", false),
  INT32_SCHEMA: primitive("INT32", false),
  INT64_SCHEMA: primitive("INT64", false),
  FLOAT32_SCHEMA: primitive("FLOAT32", false),
  FLOAT64_SCHEMA: primitive("FLOAT64", false),
  BOOLEAN_SCHEMA: primitive("BOOLEAN", false),
  STRING_SCHEMA: primitive("STRING", false),
  BYTES_SCHEMA: primitive("BYTES", false),
  OPTIONAL_INT8_SCHEMA: primitive("INT8", true),
  OPTIONAL_INT16_SCHEMA: primitive("INT16", true),
  OPTIONAL_INT32_SCHEMA: primitive("INT32", true),
  OPTIONAL_INT64_SCHEMA: primitive("INT64", true),
  OPTIONAL_FLOAT32_SCHEMA: primitive("FLOAT32", true),
  OPTIONAL_FLOAT64_SCHEMA: primitive("FLOAT64", true),
  OPTIONAL_BOOLEAN_SCHEMA: primitive("BOOLEAN", true),
  OPTIONAL_STRING_SCHEMA: primitive("STRING", true),
  OPTIONAL_BYTES_SCHEMA: primitive("BYTES", true),
});

/** A schema and a value, as converters return them (Kafka's `SchemaAndValue`). Both may be null. */
export interface SchemaAndValue {
  readonly schema: Schema | null;
  readonly value: unknown;
}

/** Kafka's `SchemaAndValue.NULL`. */
export const NULL_SCHEMA_AND_VALUE: SchemaAndValue = Object.freeze({ schema: null, value: null });
