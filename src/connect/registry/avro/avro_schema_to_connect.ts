/**
 * Avro schema → Connect schema, as Confluent's `AvroData.toConnectSchema` (with `connect.meta.data=true`):
 * `["null", T]` unions become optional T; `logicalType` decimal/date/time-millis/timestamp-millis become the
 * Connect logical types; `connect.name`, `connect.version` (else the registry version, top level only),
 * `connect.doc`, `connect.parameters` and `connect.default` restore the Connect metadata; a record without
 * `connect.name` is named by its full name (except `io.confluent.connect.avro.ConnectDefault*`). Other unions
 * become `io.confluent.connect.avro.Union` structs with one optional field per branch.
 */
import { DataException } from "../../errors.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import type { Schema } from "../../schema.ts";
import { SchemaBuilder } from "../../schema_builder.ts";
import { AVRO_UNION_NAME, avroDefaultValue, unionMemberFieldName } from "./avro_values.ts";
import {
  AVRO_NAMESPACE,
  DEFAULT_DECIMAL_PRECISION,
  DEFAULT_SCHEMA_FULL_NAME,
  FIELD_DEFAULT_FLAG,
} from "./avro_schema_from_connect.ts";
import { avroAttributes, type AvroField, avroKind, type AvroType } from "./avro_schema.ts";

function isMapEntry(type: AvroType): boolean {
  return avroKind(type) === "record" &&
    (type.name === `${AVRO_NAMESPACE}.MapEntry` ||
      avroAttributes(type)["connect.internal.type"] === "MapEntry") &&
    type.fields.length === 2 && type.fields[0].name === "key" && type.fields[1].name === "value";
}

interface ConvertOptions {
  readonly optional?: boolean;
  readonly fieldDefault?: { readonly value: unknown };
  readonly version?: number | null;
}

class Converter {
  /** Records being converted, to stop at recursive schemas (Connect schemas cannot be cyclic here). */
  readonly #inProgress = new Set<AvroType>();

  /**
   * `optional` for union members; `fieldDefault` the record field's `default` when it has one; `version` the
   * registry version, at the top level only.
   */
  convert(type: AvroType, { optional = false, fieldDefault, version = null }: ConvertOptions = {}): Schema {
    if (avroKind(type) === "union") return this.#union(type);
    const builder = this.#builder(type);
    const attributes = avroAttributes(type);
    const doc = attributes["connect.doc"];
    if (typeof doc === "string") builder.doc(doc);
    const connectVersion = attributes["connect.version"];
    if (typeof connectVersion === "number") builder.version(connectVersion);
    else if (version !== null) builder.version(version);
    const parameters = attributes["connect.parameters"];
    if (parameters !== undefined) {
      if (typeof parameters !== "object" || parameters === null) {
        throw new DataException(
          `Expected JSON object for schema parameters but found: ${JSON.stringify(parameters)}`,
        );
      }
      for (const [k, v] of Object.entries(parameters)) {
        if (typeof v !== "string") {
          throw new DataException(
            `Expected schema parameter values to be strings but found: ${JSON.stringify(v)}`,
          );
        }
        builder.parameter(k, v);
      }
    }
    for (const [k, v] of Object.entries(attributes)) {
      if (k.startsWith("avro")) builder.parameter(k, String(v));
    }
    const connectName = attributes["connect.name"];
    let name: string | null = typeof connectName === "string" ? connectName : null;
    if (name === null && ["record", "enum"].includes(avroKind(type))) name = type.name!;
    if (name !== null && !name.startsWith(DEFAULT_SCHEMA_FULL_NAME)) {
      const current = builder.build().name;
      if (current === null) builder.name(name);
      else if (current !== name) {
        throw new DataException(
          `Mismatched names: name already added to SchemaBuilder (${current}) differs from name in source schema (${name})`,
        );
      }
    }
    if (optional) builder.optional();
    const connectDefault = attributes["connect.default"];
    if (fieldDefault !== undefined && connectDefault === undefined) {
      builder.parameter(FIELD_DEFAULT_FLAG, "true");
    }
    const defaultJson = fieldDefault !== undefined ? fieldDefault.value : connectDefault;
    if (defaultJson !== undefined && defaultJson !== null) {
      builder.defaultValue(avroDefaultValue(type, builder.build(), defaultJson));
    }
    return builder.build();
  }

  #builder(type: AvroType): SchemaBuilder {
    const attributes = avroAttributes(type);
    const logical = attributes.logicalType;
    switch (avroKind(type)) {
      case "boolean":
        return SchemaBuilder.bool();
      case "bytes":
      case "fixed":
        return this.#bytes(type, logical);
      case "double":
        return SchemaBuilder.float64();
      case "float":
        return SchemaBuilder.float32();
      case "int": {
        if (logical === "date") return ConnectDate.builder();
        if (logical === "time-millis") return ConnectTime.builder();
        const connectType = attributes["connect.type"];
        if (connectType === "int8") return SchemaBuilder.int8();
        if (connectType === "int16") return SchemaBuilder.int16();
        return SchemaBuilder.int32();
      }
      case "long":
        return logical === "timestamp-millis" ? ConnectTimestamp.builder() : SchemaBuilder.int64();
      case "string":
        return SchemaBuilder.string();
      case "null":
        throw new DataException("Standalone null schemas are not supported by this converter");
      case "enum": {
        const builder = SchemaBuilder.string().parameter(`${AVRO_NAMESPACE}.Enum`, type.name!);
        for (const symbol of type.symbols) builder.parameter(`${AVRO_NAMESPACE}.Enum.${symbol}`, symbol);
        return builder;
      }
      case "array":
        if (isMapEntry(type.itemsType)) {
          const [key, value] = type.itemsType.fields;
          return SchemaBuilder.map(this.convert(key.type), this.convert(value.type));
        }
        return SchemaBuilder.array(this.convert(type.itemsType));
      case "map":
        return SchemaBuilder.map(SchemaBuilder.string().build(), this.convert(type.valuesType));
      case "record": {
        if (this.#inProgress.has(type)) {
          throw new DataException(`Recursive Avro record ${type.name} is not supported`);
        }
        this.#inProgress.add(type);
        const builder = SchemaBuilder.struct();
        if (typeof attributes.doc === "string") {
          builder.parameter(`${AVRO_NAMESPACE}.record.doc`, attributes.doc);
        }
        type.fields.forEach((field: AvroField, i: number) => {
          const raw = attributes.fields[i];
          if (typeof raw.doc === "string") {
            builder.parameter(`${AVRO_NAMESPACE}.field.doc.${field.name}`, raw.doc);
          }
          const fieldDefault = Object.hasOwn(raw, "default") ? { value: raw.default } : undefined;
          builder.field(field.name, this.convert(field.type, { fieldDefault }));
        });
        this.#inProgress.delete(type);
        return builder;
      }
    }
    throw new DataException(`Unsupported Avro type ${type.typeName}`);
  }

  #bytes(type: AvroType, logical: unknown): SchemaBuilder {
    if (logical !== "decimal") return SchemaBuilder.bytes();
    const { scale, precision = DEFAULT_DECIMAL_PRECISION } = avroAttributes(type);
    if (typeof scale !== "number") throw new DataException("scale must be specified and must be a number.");
    if (typeof precision !== "number") throw new DataException("precision property must be a JSON Integer.");
    const builder = ConnectDecimal.builder(scale);
    if (precision !== DEFAULT_DECIMAL_PRECISION) {
      builder.parameter("connect.decimal.precision", String(precision));
    }
    return builder;
  }

  #union(type: AvroType): Schema {
    const branches: AvroType[] = type.types;
    const nonNull = branches.filter((b) => b.typeName !== "null");
    if (branches.length === 2 && nonNull.length === 1) {
      return this.convert(nonNull[0], { optional: true });
    }
    const builder = SchemaBuilder.struct().name(AVRO_UNION_NAME);
    if (nonNull.length !== branches.length) builder.optional();
    const names = new Set<string>();
    for (const branch of nonNull) {
      const name = unionMemberFieldName(branch);
      if (names.has(name)) {
        throw new DataException("Multiple union schemas map to the Connect union field name");
      }
      names.add(name);
      builder.field(name, this.convert(branch, { optional: true }));
    }
    return builder.build();
  }
}

/** The Connect schema of an Avro schema; `version` (the registry version) applies when the schema has none. */
export function avroToConnectSchema(type: AvroType, version: number | null): Schema {
  return new Converter().convert(type, { version });
}
