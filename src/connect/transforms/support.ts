/**
 * Helpers every transform shares: which side of the record it operates on (Kafka's `$Key` / `$Value` nested
 * classes), Kafka's `Requirements` checks with their messages, `SchemaUtil.copySchemaBasics`, and schemaless map
 * handling.
 *
 * Schemaless maps may be a JS `Map` or a plain object (see schema.ts); transforms return the same representation
 * they were given, so a record keeps its shape through a chain.
 */
import { BigDecimal } from "../big_decimal.ts";
import { DataException } from "../errors.ts";
import { SinkRecord } from "../record.ts";
import type { Field, Schema } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { isConnectMap, Struct } from "../struct.ts";
import type { AnyRecord } from "./types.ts";

/** The part of the record a `$Key` or `$Value` transform reads and rewrites. */
export type RecordSide = "key" | "value";

/** Kafka's `operatingSchema(record)`. */
export function operatingSchema(record: AnyRecord, side: RecordSide): Schema | null {
  return side === "key" ? record.keySchema : record.valueSchema;
}

/** Kafka's `operatingValue(record)`. */
export function operatingValue(record: AnyRecord, side: RecordSide): unknown {
  return side === "key" ? record.key : record.value;
}

/** Kafka's `newRecord(record, updatedSchema, updatedValue)`: the record with one side replaced. */
export function withOperating<R extends AnyRecord>(
  record: R,
  side: RecordSide,
  schema: Schema | null,
  value: unknown,
): R {
  return (side === "key"
    ? record.newRecord({ keySchema: schema, key: value })
    : record.newRecord({ valueSchema: schema, value })) as R;
}

/**
 * The Java class name of a value, as Kafka prints it in messages (`nullSafeClassName`): the class a converter
 * would have produced for the same data.
 */
export function javaClassName(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return "java.lang.String";
    case "boolean":
      return "java.lang.Boolean";
    case "bigint":
      return "java.lang.Long";
    case "number":
      return Number.isInteger(value) ? "java.lang.Long" : "java.lang.Double";
  }
  if (value instanceof Uint8Array) return "[B";
  if (Array.isArray(value)) return "java.util.ArrayList";
  if (value instanceof Struct) return "org.apache.kafka.connect.data.Struct";
  if (value instanceof Date) return "java.util.Date";
  if (value instanceof BigDecimal) return "java.math.BigDecimal";
  if (isConnectMap(value)) return "java.util.HashMap";
  return (value as object).constructor?.name ?? "java.lang.Object";
}

/** A schemaless key or value with string keys. */
export type SchemalessMap = Map<unknown, unknown> | Record<string, unknown>;

/** Kafka's `requireMap`: the value must be a map because there is no schema. */
export function requireMap(value: unknown, purpose: string): SchemalessMap {
  if (!isConnectMap(value)) {
    throw new DataException(
      `Only Map objects supported in absence of schema for [${purpose}], found: ${javaClassName(value)}`,
    );
  }
  return value;
}

export function requireMapOrNull(value: unknown, purpose: string): SchemalessMap | null {
  return value === null || value === undefined ? null : requireMap(value, purpose);
}

/** Kafka's `requireStruct`. */
export function requireStruct(value: unknown, purpose: string): Struct {
  if (!(value instanceof Struct)) {
    throw new DataException(`Only Struct objects supported for [${purpose}], found: ${javaClassName(value)}`);
  }
  return value;
}

export function requireStructOrNull(value: unknown, purpose: string): Struct | null {
  return value === null || value === undefined ? null : requireStruct(value, purpose);
}

/** Kafka's `requireSchema`. */
export function requireSchema(schema: Schema | null, purpose: string): Schema {
  if (schema === null) throw new DataException(`Schema required for [${purpose}]`);
  return schema;
}

/** Kafka's `requireSinkRecord`. */
export function requireSinkRecord(record: AnyRecord, purpose: string): SinkRecord {
  if (!(record instanceof SinkRecord)) {
    throw new DataException(
      `Only SinkRecord supported for [${purpose}], found: org.apache.kafka.connect.source.SourceRecord`,
    );
  }
  return record;
}

/** Kafka's `SchemaUtil.copySchemaBasics(source, builder)`: name, version, doc and parameters (not optionality). */
export function copySchemaBasics(source: Schema, builder: SchemaBuilder): SchemaBuilder {
  if (source.name !== null) builder.name(source.name);
  if (source.version !== null) builder.version(source.version);
  if (source.doc !== null) builder.doc(source.doc);
  if (source.parameters !== null) builder.parameters(source.parameters);
  return builder;
}

/** Kafka's `SchemaUtil.copySchemaBasics(source)`: a builder of the same type (and children) with the basics. */
export function copySchemaBasicsOf(source: Schema): SchemaBuilder {
  const builder = source.type === "ARRAY"
    ? SchemaBuilder.array(source.valueSchema())
    : source.type === "MAP"
    ? SchemaBuilder.map(source.keySchema(), source.valueSchema())
    : new SchemaBuilder(source.type);
  return copySchemaBasics(source, builder);
}

/** A struct field's value honouring `replace.null.with.default` (Kafka's `get` vs `getWithoutDefault`). */
export function fieldValue(struct: Struct, field: Field | string, replaceNullWithDefault: boolean): unknown {
  return replaceNullWithDefault ? struct.get(field) : struct.getWithoutDefault(field);
}

/** The value of `key` in a schemaless map, or null when absent (Java's `Map.get`). */
export function mapGet(map: SchemalessMap, key: string): unknown {
  if (map instanceof Map) return map.has(key) ? map.get(key) ?? null : null;
  return Object.hasOwn(map, key) ? map[key] ?? null : null;
}

/** The entries of a schemaless map, in insertion order. */
export function mapEntries(map: SchemalessMap): [unknown, unknown][] {
  return map instanceof Map ? [...map.entries()] : Object.entries(map);
}

/**
 * A mutable copy-builder for a schemaless map that produces the same representation as `like` (a `Map` stays a
 * `Map`, a plain object stays a plain object). Entries keep insertion order; `set` of an existing key keeps its
 * position, as a Java `LinkedHashMap` would.
 */
export class MapBuilder {
  readonly #entries = new Map<unknown, unknown>();

  constructor(private readonly asMap: boolean, entries: Iterable<[unknown, unknown]> = []) {
    for (const [k, v] of entries) this.#entries.set(k, v);
  }

  static like(original: SchemalessMap | null, copyEntries = false): MapBuilder {
    return new MapBuilder(original instanceof Map, copyEntries && original ? mapEntries(original) : []);
  }

  set(key: unknown, value: unknown): this {
    this.#entries.set(key, value ?? null);
    return this;
  }

  delete(key: unknown): this {
    this.#entries.delete(key);
    return this;
  }

  build(): SchemalessMap {
    if (this.asMap) return new Map(this.#entries);
    const object: Record<string, unknown> = {};
    for (const [k, v] of this.#entries) object[String(k)] = v;
    return object;
  }
}
