/**
 * Kafka's `ValueToKey`: replaces the record key with a Struct (or, schemaless, a map) of the listed value fields.
 * The key schema is an unnamed struct of those fields' schemas, in the listed order. A field missing from a
 * Struct value's schema is a `DataException` (`Field does not exist: x`); a missing schemaless entry is null.
 */
import { DataException } from "../errors.ts";
import type { Schema } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { Struct } from "../struct.ts";
import {
  type ConfigKeyDef,
  type ConfigValue,
  nonEmptyList,
  REPLACE_NULL_WITH_DEFAULT_DEF,
  TransformConfig,
} from "./config.ts";
import { SchemaCache } from "./schema_cache.ts";
import { fieldValue, MapBuilder, mapGet, requireMap, requireStruct } from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

function nonEmptyUniqueList(value: ConfigValue): string | undefined {
  const list = value as string[];
  return nonEmptyList(list) ??
    (new Set(list).size !== list.length ? "Duplicate values are not allowed" : undefined);
}

export const VALUE_TO_KEY_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "fields",
    type: "LIST",
    importance: "HIGH",
    documentation: "Field names on the record value to extract as the record key.",
    validator: nonEmptyUniqueList,
  },
  REPLACE_NULL_WITH_DEFAULT_DEF,
];

const PURPOSE = "copying fields from value to key";

export class ValueToKey<R extends AnyRecord> implements Transformation<R> {
  #fields: string[] = [];
  #replaceNullWithDefault = true;
  readonly #schemaCache = new SchemaCache();

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(VALUE_TO_KEY_CONFIG_DEF, props);
    this.#fields = config.getList("fields");
    this.#replaceNullWithDefault = config.getBoolean("replace.null.with.default");
  }

  apply(record: R): R {
    return record.valueSchema === null ? this.#applySchemaless(record) : this.#applyWithSchema(record);
  }

  #applySchemaless(record: R): R {
    const value = requireMap(record.value, PURPOSE);
    const key = MapBuilder.like(value);
    for (const field of this.#fields) key.set(field, mapGet(value, field));
    return record.newRecord({ keySchema: null, key: key.build() }) as R;
  }

  #applyWithSchema(record: R): R {
    const value = requireStruct(record.value, PURPOSE);
    const keySchema = this.#schemaCache.getOrCompute(value.schema, (s) => this.#keySchema(s));
    const key = new Struct(keySchema);
    for (const field of this.#fields) key.put(field, fieldValue(value, field, this.#replaceNullWithDefault));
    return record.newRecord({ keySchema, key }) as R;
  }

  #keySchema(valueSchema: Schema): Schema {
    const builder = SchemaBuilder.struct();
    for (const name of this.#fields) {
      const field = valueSchema.field(name);
      if (field === null) throw new DataException(`Field does not exist: ${name}`);
      builder.field(name, field.schema);
    }
    return builder.build();
  }

  close(): void {
    this.#schemaCache.clear();
  }
}
