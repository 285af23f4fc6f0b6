/**
 * Kafka's `Flatten$Key` / `Flatten$Value`: lifts nested Structs (or, schemaless, nested maps) into one level,
 * naming each field by joining the names on its path with `delimiter` (default `.`): `{a: {b: 1}}` becomes
 * `{"a.b": 1}`. Arrays are kept as they are. A Struct value keeps its schema's name, version, doc and parameters;
 * a flattened field is optional when it or any ancestor is optional, and inherits an ancestor struct's default.
 * MAP fields inside a Struct are not supported (as in Kafka). A null key/value passes through.
 */
import { DataException } from "../errors.ts";
import { type Schema, SCHEMA_TYPES } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { Struct } from "../struct.ts";
import { schemalessTypeOf } from "../values.ts";
import { type ConfigKeyDef, TransformConfig } from "./config.ts";
import { SchemaCache } from "./schema_cache.ts";
import {
  copySchemaBasics,
  copySchemaBasicsOf,
  javaClassName,
  MapBuilder,
  mapEntries,
  operatingSchema,
  operatingValue,
  type RecordSide,
  requireMap,
  requireStruct,
  type SchemalessMap,
  withOperating,
} from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

export const FLATTEN_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "delimiter",
    type: "STRING",
    default: ".",
    importance: "MEDIUM",
    documentation:
      "Delimiter to insert between field names from the input record when generating field names " +
      "for the output record",
  },
];

const PURPOSE = "flattening";

/** Schema types copied as a single flattened field. */
const LEAF_TYPES: ReadonlySet<string> = new Set(SCHEMA_TYPES.filter((t) => t !== "MAP" && t !== "STRUCT"));

export class Flatten<R extends AnyRecord> implements Transformation<R> {
  #delimiter = ".";
  readonly #schemaCache = new SchemaCache();

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    this.#delimiter = new TransformConfig(FLATTEN_CONFIG_DEF, props).getString("delimiter")!;
  }

  apply(record: R): R {
    const value = operatingValue(record, this.side);
    if (value === null) return record;
    if (operatingSchema(record, this.side) === null) {
      const original = requireMap(value, PURPOSE);
      const flattened = MapBuilder.like(original);
      this.#flattenMap(original, "", flattened);
      return withOperating(record, this.side, null, flattened.build());
    }
    const struct = requireStruct(value, PURPOSE);
    const schema = this.#schemaCache.getOrCompute(struct.schema, (s) => this.#flattenedSchema(s));
    const flattened = new Struct(schema);
    this.#flattenStruct(struct, "", flattened);
    return withOperating(record, this.side, schema, flattened);
  }

  #name(prefix: string, name: string): string {
    return prefix === "" ? name : prefix + this.#delimiter + name;
  }

  #flattenMap(map: SchemalessMap, prefix: string, out: MapBuilder): void {
    for (const [key, value] of mapEntries(map)) {
      const name = this.#name(prefix, String(key));
      if (value === null || value === undefined) {
        out.set(name, null);
        continue;
      }
      const type = schemalessTypeOf(value);
      if (type === null) {
        throw new DataException(
          `Flatten transformation was passed a value of type class ${
            javaClassName(value)
          } which is not supported by Connect's data API`,
        );
      }
      if (type === "MAP") this.#flattenMap(requireMap(value, PURPOSE), name, out);
      else if (LEAF_TYPES.has(type)) out.set(name, value);
      else {
        throw new DataException(
          `Flatten transformation does not support class ${
            javaClassName(value)
          } for record without schemas (for field ${name}).`,
        );
      }
    }
  }

  #flattenedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    this.#addFlattenedFields(schema, "", builder, schema.isOptional, schema.defaultValue as Struct | null);
    return builder.build();
  }

  #addFlattenedFields(
    schema: Schema,
    prefix: string,
    builder: SchemaBuilder,
    optional: boolean,
    defaultFromParent: Struct | null,
  ): void {
    for (const field of schema.fields()) {
      const name = this.#name(prefix, field.name);
      const fieldOptional = optional || field.schema.isOptional;
      const fieldDefault = field.schema.defaultValue ?? defaultFromParent?.get(field.name) ?? null;
      if (field.schema.type === "STRUCT") {
        this.#addFlattenedFields(field.schema, name, builder, fieldOptional, fieldDefault as Struct | null);
      } else if (LEAF_TYPES.has(field.schema.type)) {
        const fieldBuilder = copySchemaBasicsOf(field.schema);
        if (fieldOptional) fieldBuilder.optional();
        if (fieldDefault !== null) fieldBuilder.defaultValue(fieldDefault);
        builder.field(name, fieldBuilder.build());
      } else {
        throw new DataException(
          `Flatten transformation does not support ${field.schema.type} for record with schemas (for field ${name}).`,
        );
      }
    }
  }

  #flattenStruct(struct: Struct | null, prefix: string, out: Struct): void {
    if (struct === null) return;
    for (const field of struct.schema.fields()) {
      const name = this.#name(prefix, field.name);
      if (field.schema.type === "STRUCT") this.#flattenStruct(struct.get(field) as Struct | null, name, out);
      else out.put(name, struct.get(field));
    }
  }

  close(): void {
    this.#schemaCache.clear();
  }
}
