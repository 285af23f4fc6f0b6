/**
 * Protobuf message → Connect schema, as Confluent's `ProtobufData.toConnectSchema` (the mapping:
 * docs/schema-registry.md, "Schema mapping"): a message is a STRUCT named by its simple name, the top level gets
 * the registry version; enums are STRINGs; with `wrapper.for.nullables` the `google.protobuf.*Value` wrappers
 * are their optional primitive. Every field is optional (with wrappers only message and proto3 `optional` fields
 * are) and carries its number in `io.confluent.connect.protobuf.Tag`.
 */
import protobuf from "protobufjs";
import { DataException } from "../../errors.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import type { Schema, SchemaType } from "../../schema.ts";
import { SchemaBuilder } from "../../schema_builder.ts";
import { PROTOBUF_NAMESPACE, TAG_PARAM } from "./proto_from_connect.ts";
import { protoFullName, WELL_KNOWN, WRAPPERS } from "./proto_schema.ts";

/** Confluent's `(confluent.field_meta)` params of a field (e.g. `connect.type`, `scale`, `precision`). */
function fieldParams(field: protobuf.Field): Map<string, string> {
  const params = new Map<string, string>();
  for (const option of field.parsedOptions ?? []) {
    const meta = option["(confluent.field_meta)"];
    const list = meta?.params ?? option["(confluent.field_meta).params"];
    for (const entry of Array.isArray(list) ? list : list === undefined ? [] : [list]) {
      if (entry?.key !== undefined) params.set(String(entry.key), String(entry.value ?? ""));
    }
  }
  return params;
}

/** The Connect types of scalars; 32-bit ints are INT32 (or INT8/INT16 by `connect.type`), other integers INT64. */
const INT32_TYPES = new Set(["int32", "sint32", "sfixed32"]);
const SCALAR_TYPES: Readonly<Record<string, SchemaType>> = {
  float: "FLOAT32",
  double: "FLOAT64",
  bool: "BOOLEAN",
  string: "STRING",
  bytes: "BYTES",
};

/** The well-known messages of Connect's temporal logical types. */
const TEMPORAL_TYPES: Readonly<Record<string, { builder(): SchemaBuilder }>> = {
  [WELL_KNOWN.date]: ConnectDate,
  [WELL_KNOWN.timeOfDay]: ConnectTime,
  [WELL_KNOWN.timestamp]: ConnectTimestamp,
};

/** proto3 `optional` (explicit presence), which protobufjs models as a one-field oneof. */
const isProto3Optional = (field: protobuf.Field) => field.options?.proto3_optional === true;

class Converter {
  readonly #inProgress = new Set<protobuf.Type>();

  constructor(private readonly wrappers: boolean) {}

  struct(message: protobuf.Type, version: number | null): SchemaBuilder {
    if (this.#inProgress.has(message)) {
      throw new DataException(`Recursive message ${protoFullName(message)} is not supported`);
    }
    this.#inProgress.add(message);
    const builder = SchemaBuilder.struct().name(message.name);
    for (const field of message.fieldsArray) {
      if (field.partOf !== null && !isProto3Optional(field)) {
        throw new DataException(`oneof fields are not supported (${protoFullName(message)}.${field.name})`);
      }
      builder.field(field.name, this.#field(field));
    }
    if (version !== null) builder.version(version);
    this.#inProgress.delete(message);
    return builder;
  }

  #field(field: protobuf.Field): Schema {
    const params = fieldParams(field);
    let builder: SchemaBuilder;
    if (field.map) {
      builder = SchemaBuilder.map(
        this.#type((field as any).keyType as string, null, params).optional().build(),
        this.#type(field.type, field.resolvedType, params).optional().build(),
      );
    } else {
      builder = this.#type(field.type, field.resolvedType, params);
      if (field.repeated) builder = SchemaBuilder.array(builder.optional().build()).optional();
    }
    if (!this.wrappers || isProto3Optional(field) || field.rule === "optional") {
      if (!builder.isOptional) builder.optional();
    }
    return builder.parameter(TAG_PARAM, String(field.id)).build();
  }

  #type(
    type: string,
    resolved: protobuf.ReflectionObject | null,
    params: Map<string, string>,
  ): SchemaBuilder {
    if (resolved === null) {
      if (!INT32_TYPES.has(type)) return SchemaBuilder.type(SCALAR_TYPES[type] ?? "INT64");
      const connectType = params.get("connect.type");
      if (connectType === "int8") return SchemaBuilder.int8();
      if (connectType === "int16") return SchemaBuilder.int16();
      return SchemaBuilder.int32();
    }
    if (resolved instanceof protobuf.Enum) {
      const builder = SchemaBuilder.string().name(resolved.name).parameter(
        `${PROTOBUF_NAMESPACE}.Enum`,
        resolved.name,
      );
      for (const [name, number] of Object.entries(resolved.values)) {
        builder.parameter(`${PROTOBUF_NAMESPACE}.Enum.${name}`, String(number));
      }
      return builder.optional();
    }
    const fullName = protoFullName(resolved);
    if (fullName in TEMPORAL_TYPES) return TEMPORAL_TYPES[fullName].builder().optional();
    if (fullName === WELL_KNOWN.decimal) {
      const builder = ConnectDecimal.builder(Number(params.get("scale") ?? 0)).optional();
      const precision = params.get("precision");
      return precision === undefined ? builder : builder.parameter("connect.decimal.precision", precision);
    }
    if (this.wrappers && fullName in WRAPPERS) return this.#type(WRAPPERS[fullName], null, params).optional();
    return this.struct(resolved as protobuf.Type, null).optional();
  }
}

/** The Connect schema of a message; `version` is the registry version. */
export function protoToConnectSchema(
  message: protobuf.Type,
  version: number | null,
  wrappers: boolean,
): Schema {
  return new Converter(wrappers).struct(message, version).build();
}
