/**
 * Kafka's `InsertField$Key` / `InsertField$Value`: adds fields holding the record's topic, partition, offset (sink
 * records only), timestamp, or a static string.
 *
 * A field name ending in `!` makes the inserted field required, `?` (or no suffix) optional. On Struct records
 * the new fields are appended to the schema (topic STRING, partition INT32, offset INT64, timestamp the Timestamp
 * logical type, static STRING); on schemaless maps the timestamp is the epoch-millis number. A null key/value
 * (tombstone) passes through unchanged.
 */
import { ConnectTimestamp } from "../logical.ts";
import { Schema } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { Struct } from "../struct.ts";
import { SchemaCache } from "./schema_cache.ts";
import {
  type ConfigKeyDef,
  REPLACE_NULL_WITH_DEFAULT_DEF,
  TransformConfig,
  TransformConfigException,
} from "./config.ts";
import {
  copySchemaBasics,
  fieldValue,
  MapBuilder,
  operatingSchema,
  operatingValue,
  type RecordSide,
  requireMap,
  requireSinkRecord,
  requireStruct,
  withOperating,
} from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

const OPTIONALITY_DOC =
  "Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it " +
  "optional (the default).";

function fieldKey(name: string, doc: string): ConfigKeyDef {
  return { name, type: "STRING", default: null, importance: "MEDIUM", documentation: doc };
}

export const INSERT_FIELD_CONFIG_DEF: readonly ConfigKeyDef[] = [
  fieldKey("topic.field", `Field name for Kafka topic. ${OPTIONALITY_DOC}`),
  fieldKey("partition.field", `Field name for Kafka partition. ${OPTIONALITY_DOC}`),
  fieldKey(
    "offset.field",
    `Field name for Kafka offset - only applicable to sink connectors.<br/>${OPTIONALITY_DOC}`,
  ),
  fieldKey("timestamp.field", `Field name for record timestamp. ${OPTIONALITY_DOC}`),
  fieldKey("static.field", `Field name for static data field. ${OPTIONALITY_DOC}`),
  fieldKey("static.value", "Static field value, if field name configured."),
  REPLACE_NULL_WITH_DEFAULT_DEF,
];

const PURPOSE = "field insertion";
const OPTIONAL_TIMESTAMP_SCHEMA = ConnectTimestamp.builder().optional().build();

/** A configured field name with its `!` (required) or `?` (optional, default) suffix removed. */
interface InsertionSpec {
  name: string;
  optional: boolean;
}

function parseInsertionSpec(spec: string | null): InsertionSpec | null {
  if (spec === null) return null;
  if (spec.endsWith("?")) return { name: spec.slice(0, -1), optional: true };
  if (spec.endsWith("!")) return { name: spec.slice(0, -1), optional: false };
  return { name: spec, optional: true };
}

export class InsertField<R extends AnyRecord> implements Transformation<R> {
  #topic: InsertionSpec | null = null;
  #partition: InsertionSpec | null = null;
  #offset: InsertionSpec | null = null;
  #timestamp: InsertionSpec | null = null;
  #static: InsertionSpec | null = null;
  #staticValue: string | null = null;
  #replaceNullWithDefault = true;
  readonly #schemaCache = new SchemaCache();

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(INSERT_FIELD_CONFIG_DEF, props);
    this.#topic = parseInsertionSpec(config.getString("topic.field"));
    this.#partition = parseInsertionSpec(config.getString("partition.field"));
    this.#offset = parseInsertionSpec(config.getString("offset.field"));
    this.#timestamp = parseInsertionSpec(config.getString("timestamp.field"));
    this.#static = parseInsertionSpec(config.getString("static.field"));
    this.#staticValue = config.getString("static.value");
    this.#replaceNullWithDefault = config.getBoolean("replace.null.with.default");
    if (!this.#topic && !this.#partition && !this.#offset && !this.#timestamp && !this.#static) {
      throw new TransformConfigException(null, "No field insertion configured");
    }
    if (this.#static && this.#staticValue === null) {
      throw TransformConfigException.invalid(
        "static.value",
        null,
        `No value specified for static field: ${this.#static.name}`,
      );
    }
  }

  apply(record: R): R {
    const value = operatingValue(record, this.side);
    if (value === null) return record;
    return operatingSchema(record, this.side) === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, value);
  }

  #applySchemaless(record: R, raw: unknown): R {
    const updated = MapBuilder.like(requireMap(raw, PURPOSE), true);
    if (this.#topic) updated.set(this.#topic.name, record.topic);
    if (this.#partition && record.kafkaPartition !== null) {
      updated.set(this.#partition.name, record.kafkaPartition);
    }
    if (this.#offset) updated.set(this.#offset.name, requireSinkRecord(record, PURPOSE).kafkaOffset);
    if (this.#timestamp && record.timestamp !== null) updated.set(this.#timestamp.name, record.timestamp);
    if (this.#static && this.#staticValue !== null) updated.set(this.#static.name, this.#staticValue);
    return withOperating(record, this.side, null, updated.build());
  }

  #applyWithSchema(record: R, raw: unknown): R {
    const value = requireStruct(raw, PURPOSE);
    const schema = this.#schemaCache.getOrCompute(value.schema, (s) => this.#updatedSchema(s));
    const updated = new Struct(schema);
    for (const field of value.schema.fields()) {
      updated.put(field.name, fieldValue(value, field, this.#replaceNullWithDefault));
    }
    if (this.#topic) updated.put(this.#topic.name, record.topic);
    if (this.#partition && record.kafkaPartition !== null) {
      updated.put(this.#partition.name, record.kafkaPartition);
    }
    if (this.#offset) updated.put(this.#offset.name, requireSinkRecord(record, PURPOSE).kafkaOffset);
    if (this.#timestamp && record.timestamp !== null) {
      updated.put(this.#timestamp.name, new Date(record.timestamp));
    }
    if (this.#static && this.#staticValue !== null) updated.put(this.#static.name, this.#staticValue);
    return withOperating(record, this.side, schema, updated);
  }

  #updatedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const field of schema.fields()) builder.field(field.name, field.schema);
    const pick = (spec: InsertionSpec | null, optional: Schema, required: Schema) => {
      if (spec) builder.field(spec.name, spec.optional ? optional : required);
    };
    pick(this.#topic, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA);
    pick(this.#partition, Schema.OPTIONAL_INT32_SCHEMA, Schema.INT32_SCHEMA);
    pick(this.#offset, Schema.OPTIONAL_INT64_SCHEMA, Schema.INT64_SCHEMA);
    pick(this.#timestamp, OPTIONAL_TIMESTAMP_SCHEMA, ConnectTimestamp.SCHEMA);
    pick(this.#static, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA);
    return builder.build();
  }

  close(): void {
    this.#schemaCache.clear();
  }
}
