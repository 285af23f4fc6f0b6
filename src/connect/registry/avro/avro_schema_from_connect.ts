/**
 * Connect schema → Avro schema JSON, as Confluent's `AvroData.fromConnectSchema` builds it (with
 * `connect.meta.data=true`; the mapping: docs/schema-registry.md, "Schema mapping") and as Avro's Java
 * `Schema.toString()` prints it, so a registered schema text matches what Kafka Connect registers: properties in
 * Confluent's order (`connect.doc`, `connect.version`, `connect.parameters`, `connect.default`, `connect.name`,
 * `connect.type`, `logicalType`); an optional schema with a default is `[T, "null"]`; a named type is printed in
 * full the first time and by name afterwards, its namespace only when it differs from the enclosing one.
 */
import { DataException } from "../../errors.ts";
import { encodeLatin1Default } from "./avro_defaults.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import { type Schema, schemaEquals } from "../../schema.ts";
import { checkName, splitName } from "../schema_names.ts";

export const AVRO_NAMESPACE = "io.confluent.connect.avro";
export const DEFAULT_SCHEMA_FULL_NAME = `${AVRO_NAMESPACE}.ConnectDefault`;
export const FIELD_DEFAULT_FLAG = `${AVRO_NAMESPACE}.field.default`;
const RECORD_DOC_PARAM = `${AVRO_NAMESPACE}.record.doc`;
const FIELD_DOC_PREFIX = `${AVRO_NAMESPACE}.field.doc.`;
const DECIMAL_PRECISION_PARAM = "connect.decimal.precision";
export const DEFAULT_DECIMAL_PRECISION = 64;

const AVRO_PRIMITIVE: Partial<Record<Schema["type"], string>> = {
  INT8: "int",
  INT16: "int",
  INT32: "int",
  INT64: "long",
  FLOAT32: "float",
  FLOAT64: "double",
  BOOLEAN: "boolean",
  STRING: "string",
  BYTES: "bytes",
};

const LOGICAL_AVRO: Record<string, string> = {
  [ConnectDecimal.LOGICAL_NAME]: "decimal",
  [ConnectTime.LOGICAL_NAME]: "time-millis",
  [ConnectTimestamp.LOGICAL_NAME]: "timestamp-millis",
  [ConnectDate.LOGICAL_NAME]: "date",
};

type Json = unknown;

class Generator {
  /** Records already printed: full name → the Connect shape it stands for. */
  readonly #records = new Map<string, Schema>();
  readonly #unnamedNames: Array<[Schema, string]> = [];

  /** The Avro JSON of `schema` inside namespace `space`; optional schemas as unions with null. */
  toJson(schema: Schema, space: string | null): Json {
    const base = this.#base(schema, space);
    if (!schema.isOptional) return base;
    return schema.type !== "STRUCT" && schema.defaultValue !== null ? [base, "null"] : ["null", base];
  }

  #base(schema: Schema, space: string | null): Json {
    if (schema.type === "STRUCT") return this.#record(schema, space);
    const props: Array<[string, Json]> = [];
    let type = AVRO_PRIMITIVE[schema.type];
    const extra: Array<[string, Json]> = [];
    if (schema.name === ConnectDecimal.LOGICAL_NAME && schema.type === "BYTES") {
      const precision = Number(schema.parameters?.get(DECIMAL_PRECISION_PARAM) ?? DEFAULT_DECIMAL_PRECISION);
      props.push(["scale", ConnectDecimal.scale(schema)], ["precision", precision]);
    }
    switch (schema.type) {
      case "ARRAY":
        type = "array";
        extra.push(["items", this.toJson(schema.valueSchema(), space)]);
        break;
      case "MAP":
        if (schema.keySchema().type === "STRING" && !schema.keySchema().isOptional) {
          type = "map";
          extra.push(["values", this.toJson(schema.valueSchema(), space)]);
        } else {
          type = "array";
          extra.push(["items", this.#mapEntry(schema, space)]);
        }
        break;
      default:
        if (type === undefined) throw new DataException(`Unknown schema type: ${schema.type}`);
    }
    this.#metadata(schema, props);
    if (schema.type === "INT8" || schema.type === "INT16") {
      props.push(["connect.type", schema.type.toLowerCase()]);
    }
    const logical = schema.name === null ? undefined : LOGICAL_AVRO[schema.name];
    if (logical !== undefined) props.push(["logicalType", logical]);
    for (const [k, v] of schema.parameters ?? []) if (k.startsWith("avro")) props.push([k, v]);
    if (props.length === 0 && extra.length === 0) return type;
    return Object.fromEntries([["type", type], ...extra, ...props]);
  }

  /** Confluent's connect.* properties, in its order. */
  #metadata(schema: Schema, props: Array<[string, Json]>): void {
    if (schema.doc !== null) props.push(["connect.doc", schema.doc]);
    if (schema.version !== null) props.push(["connect.version", schema.version]);
    const parameters = [...(schema.parameters ?? [])].filter(([k]) => k !== FIELD_DEFAULT_FLAG);
    if (parameters.length > 0) props.push(["connect.parameters", Object.fromEntries(parameters)]);
    if (schema.defaultValue !== null && !schema.parameters?.has(FIELD_DEFAULT_FLAG)) {
      props.push(["connect.default", encodeLatin1Default(schema, schema.defaultValue)]);
    }
    if (schema.name !== null) props.push(["connect.name", schema.name]);
  }

  #recordName(schema: Schema): string {
    if (schema.name !== null) return schema.name;
    const known = this.#unnamedNames.find(([s]) => schemaEquals(s, schema, true));
    if (known) return known[1];
    const count = this.#unnamedNames.length + 1;
    const name = `${DEFAULT_SCHEMA_FULL_NAME}${count === 1 ? "" : count}`;
    this.#unnamedNames.push([schema, name]);
    return name;
  }

  #reference(fullName: string, space: string | null): string {
    const [namespace, name] = splitName(fullName);
    return namespace === space ? name : fullName;
  }

  #record(schema: Schema, space: string | null): Json {
    const fullName = this.#recordName(schema);
    const printed = this.#records.get(fullName);
    if (printed !== undefined) {
      if (!schemaEquals(printed, schema, true)) throw new DataException(`Can't redefine: ${fullName}`);
      return this.#reference(fullName, space);
    }
    this.#records.set(fullName, schema);
    for (const part of fullName.split(".")) checkName(part, "Avro", "record");
    const [out, inner] = recordHead(fullName, space);
    const doc = schema.parameters?.get(RECORD_DOC_PARAM);
    if (doc !== undefined) out.push(["doc", doc]);
    const fields = schema.fields().map((field) => {
      checkName(field.name, "Avro", "field");
      const entry: Array<[string, Json]> = [["name", field.name], ["type", this.toJson(field.schema, inner)]];
      const fieldDoc = schema.parameters?.get(FIELD_DOC_PREFIX + field.name);
      if (fieldDoc !== undefined) entry.push(["doc", fieldDoc]);
      if (field.schema.defaultValue !== null) {
        entry.push(["default", encodeLatin1Default(field.schema, field.schema.defaultValue)]);
      } else if (field.schema.isOptional) {
        entry.push(["default", null]);
      }
      return Object.fromEntries(entry);
    });
    out.push(["fields", fields]);
    this.#metadata(schema, out);
    return Object.fromEntries(out);
  }

  #mapEntry(schema: Schema, space: string | null): Json {
    const [out, inner] = recordHead(schema.name ?? `${AVRO_NAMESPACE}.MapEntry`, space);
    out.push(["fields", [
      { name: "key", type: this.toJson(schema.keySchema(), inner) },
      { name: "value", type: this.toJson(schema.valueSchema(), inner) },
    ]]);
    if (schema.name !== null) out.push(["connect.internal.type", "MapEntry"]);
    return Object.fromEntries(out);
  }
}

/** A record's `type`, `name` and (when it differs from the enclosing `space`) `namespace`; its own namespace. */
function recordHead(fullName: string, space: string | null): [Array<[string, Json]>, string | null] {
  const [namespace, name] = splitName(fullName);
  const head: Array<[string, Json]> = [["type", "record"], ["name", name]];
  if (namespace !== null && namespace !== space) head.push(["namespace", namespace]);
  return [head, namespace ?? space];
}

/** The Avro schema JSON text for a Connect schema. */
export function avroSchemaText(schema: Schema): string {
  return JSON.stringify(new Generator().toJson(schema, null));
}
