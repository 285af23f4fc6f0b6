/**
 * Kafka's `SetSchemaMetadata$Key` / `SetSchemaMetadata$Value`: sets the name and/or version of the key/value
 * schema, keeping everything else (type, optionality, default, doc, parameters, fields). A Struct value is
 * rebuilt on the renamed schema. The record must have a schema (`Schema required for [updating schema
 * metadata]`).
 */
import { ConnectSchema, type Schema } from "../schema.ts";
import { Struct } from "../struct.ts";
import {
  type ConfigKeyDef,
  REPLACE_NULL_WITH_DEFAULT_DEF,
  TransformConfig,
  TransformConfigException,
} from "./config.ts";
import {
  fieldValue,
  operatingSchema,
  operatingValue,
  type RecordSide,
  requireSchema,
  withOperating,
} from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

export const SET_SCHEMA_METADATA_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "schema.name",
    type: "STRING",
    default: null,
    importance: "HIGH",
    documentation: "Schema name to set.",
  },
  {
    name: "schema.version",
    type: "INT",
    default: null,
    importance: "HIGH",
    documentation: "Schema version to set.",
  },
  REPLACE_NULL_WITH_DEFAULT_DEF,
];

export class SetSchemaMetadata<R extends AnyRecord> implements Transformation<R> {
  #name: string | null = null;
  #version: number | null = null;
  #replaceNullWithDefault = true;

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(SET_SCHEMA_METADATA_CONFIG_DEF, props);
    this.#name = config.getString("schema.name");
    this.#version = config.getInt("schema.version");
    this.#replaceNullWithDefault = config.getBoolean("replace.null.with.default");
    if (this.#name === null && this.#version === null) {
      throw new TransformConfigException(null, "Neither schema name nor version configured");
    }
  }

  apply(record: R): R {
    const schema = requireSchema(operatingSchema(record, this.side), "updating schema metadata");
    const updated = new ConnectSchema({
      type: schema.type,
      isOptional: schema.isOptional,
      defaultValue: schema.defaultValue,
      name: this.#name ?? schema.name,
      version: this.#version ?? schema.version,
      doc: schema.doc,
      parameters: schema.parameters,
      fields: schema.type === "STRUCT" ? schema.fields() : undefined,
      keySchema: schema.type === "MAP" ? schema.keySchema() : null,
      valueSchema: schema.type === "MAP" || schema.type === "ARRAY" ? schema.valueSchema() : null,
    });
    return withOperating(
      record,
      this.side,
      updated,
      this.#rebuilt(operatingValue(record, this.side), updated),
    );
  }

  /** Kafka's `updateSchemaIn`: a Struct must carry the new schema; other values are kept. */
  #rebuilt(value: unknown, schema: Schema): unknown {
    if (!(value instanceof Struct)) return value;
    const rebuilt = new Struct(schema);
    for (const field of schema.fields()) {
      rebuilt.put(field, fieldValue(value, field.name, this.#replaceNullWithDefault));
    }
    return rebuilt;
  }

  close(): void {}
}
