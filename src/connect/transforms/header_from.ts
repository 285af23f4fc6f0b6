/**
 * Kafka's `HeaderFrom$Key` / `HeaderFrom$Value`: copies (`operation=copy`) or moves (`operation=move`, removing
 * them from the key/value) the listed `fields` into headers named by `headers`, pairwise in order. With a schema
 * each header gets its field's schema; schemaless headers have none. A field missing from a Struct's schema is a
 * `DataException`; a missing schemaless entry gives a null header.
 */
import { DataException } from "../errors.ts";
import type { Schema } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { Struct } from "../struct.ts";
import {
  type ConfigKeyDef,
  nonEmptyList,
  REPLACE_NULL_WITH_DEFAULT_DEF,
  TransformConfig,
  TransformConfigException,
} from "./config.ts";
import { SchemaCache } from "./schema_cache.ts";
import {
  copySchemaBasics,
  fieldValue,
  MapBuilder,
  mapGet,
  operatingSchema,
  operatingValue,
  type RecordSide,
  requireMap,
  requireStruct,
} from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

export const HEADER_FROM_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "fields",
    type: "LIST",
    importance: "HIGH",
    documentation: "Field names in the record whose values are to be copied or moved to headers.",
    validator: nonEmptyList,
  },
  {
    name: "headers",
    type: "LIST",
    importance: "HIGH",
    documentation:
      "Header names, in the same order as the field names listed in the fields configuration property.",
    validator: nonEmptyList,
  },
  {
    name: "operation",
    type: "STRING",
    validValues: ["move", "copy"],
    importance: "HIGH",
    documentation:
      "Either <code>move</code> if the fields are to be moved to the headers (removed from the " +
      "key/value), or <code>copy</code> if the fields are to be copied to the headers (retained in the key/value).",
  },
  REPLACE_NULL_WITH_DEFAULT_DEF,
];

type Operation = "move" | "copy";

export class HeaderFrom<R extends AnyRecord> implements Transformation<R> {
  #fields: string[] = [];
  #headers: string[] = [];
  #operation: Operation = "copy";
  #replaceNullWithDefault = true;
  readonly #moveSchemaCache = new SchemaCache();

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(HEADER_FROM_CONFIG_DEF, props);
    this.#fields = config.getList("fields");
    this.#headers = config.getList("headers");
    this.#operation = config.getString("operation") as Operation;
    this.#replaceNullWithDefault = config.getBoolean("replace.null.with.default");
    if (this.#fields.length !== this.#headers.length) {
      throw new TransformConfigException(
        "headers",
        "'fields' config must have the same number of elements as 'headers' config.",
      );
    }
  }

  apply(record: R): R {
    const schema = operatingSchema(record, this.side);
    const value = operatingValue(record, this.side);
    return schema === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, schema, value);
  }

  #applyWithSchema(record: R, schema: Schema, raw: unknown): R {
    const headers = record.headers.duplicate();
    const value = requireStruct(raw, `header ${this.#operation}`);
    let updatedSchema = schema;
    let updatedValue = value;
    if (this.#operation === "move") {
      updatedSchema = this.#moveSchemaCache.getOrCompute(schema, (s) => this.#schemaWithoutFields(s));
      updatedValue = new Struct(updatedSchema);
      for (const field of updatedSchema.fields()) {
        updatedValue.put(field, fieldValue(value, field.name, this.#replaceNullWithDefault));
      }
    }
    this.#fields.forEach((name, i) => {
      const field = schema.field(name);
      if (field === null) throw new DataException(`Field does not exist: ${name}`);
      headers.add(this.#headers[i], fieldValue(value, name, this.#replaceNullWithDefault), field.schema);
    });
    return this.#newRecord(record, updatedSchema, updatedValue, headers);
  }

  #applySchemaless(record: R, raw: unknown): R {
    const headers = record.headers.duplicate();
    const value = requireMap(raw, `header ${this.#operation}`);
    const updated = MapBuilder.like(value, true);
    this.#fields.forEach((name, i) => {
      if (this.#operation === "move") updated.delete(name);
      headers.add(this.#headers[i], mapGet(value, name), null);
    });
    return this.#newRecord(record, null, updated.build(), headers);
  }

  #schemaWithoutFields(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const field of schema.fields()) {
      if (!this.#fields.includes(field.name)) builder.field(field.name, field.schema);
    }
    return builder.build();
  }

  #newRecord(record: R, schema: Schema | null, value: unknown, headers: R["headers"]): R {
    return (this.side === "key"
      ? record.newRecord({ keySchema: schema, key: value, headers })
      : record.newRecord({ valueSchema: schema, value, headers })) as R;
  }

  close(): void {
    this.#moveSchemaCache.clear();
  }
}
