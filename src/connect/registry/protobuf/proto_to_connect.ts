/**
 * Protobuf message → Connect schema, as Confluent's `ProtobufData.toConnectSchema`:
 *
 * - A message is a STRUCT named by the message's simple name; the top level gets the registry version.
 * - `int32`/`sint32`/`sfixed32` → INT32 (INT8/INT16 with `connect.type`), other integers → INT64, `float` →
 *   FLOAT32, `double` → FLOAT64, `bool`, `string`, `bytes` as named; enums → STRING.
 * - `confluent.type.Decimal` → Decimal (scale and precision from the field's params), `google.type.Date` →
 *   Date, `google.type.TimeOfDay` → Time, `google.protobuf.Timestamp` → Timestamp; with `wrapper.for.nullables`
 *   the `google.protobuf.*Value` wrappers → their optional primitive.
 * - `repeated` → ARRAY of optional elements; `map<K, V>` → MAP.
 * - Every field is optional (unless `wrapper.for.nullables`, where only message fields and proto3 `optional`
 *   fields are) and carries its number in `io.confluent.connect.protobuf.Tag`.
 */
import { DataException } from "../../errors.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import type { Schema } from "../../schema.ts";
import { SchemaBuilder } from "../../schema_builder.ts";
import { PROTOBUF_NAMESPACE, TAG_PARAM } from "./proto_from_connect.ts";
import { type ProtoField, type ProtoMessage, SCALAR_TYPES } from "./proto_model.ts";
import {
  DATE_TYPE,
  DECIMAL_TYPE,
  type ProtoTypes,
  TIME_OF_DAY_TYPE,
  TIMESTAMP_TYPE,
  WRAPPERS,
} from "./proto_types.ts";

class Converter {
  readonly #inProgress = new Set<ProtoMessage>();

  constructor(private readonly types: ProtoTypes, private readonly wrappers: boolean) {}

  struct(message: ProtoMessage, version: number | null): SchemaBuilder {
    if (this.#inProgress.has(message)) {
      throw new DataException(`Recursive message ${message.fullName} is not supported`);
    }
    this.#inProgress.add(message);
    const builder = SchemaBuilder.struct().name(message.name);
    for (const field of message.fields) {
      if (field.oneof !== null) {
        throw new DataException(`oneof fields are not supported (${message.fullName}.${field.name})`);
      }
      builder.field(field.name, this.#field(field, message.fullName));
    }
    if (version !== null) builder.version(version);
    this.#inProgress.delete(message);
    return builder;
  }

  #field(field: ProtoField, scope: string): Schema {
    let builder: SchemaBuilder;
    if (field.map !== null) {
      builder = SchemaBuilder.map(
        this.#type(field.map.key, field, scope).optional().build(),
        this.#type(field.map.value, field, scope).optional().build(),
      );
    } else {
      builder = this.#type(field.type, field, scope);
      if (field.label === "repeated") builder = SchemaBuilder.array(builder.optional().build()).optional();
    }
    if (!this.wrappers || field.label === "optional") {
      if (!builder.isOptional) builder.optional();
    }
    return builder.parameter(TAG_PARAM, String(field.number)).build();
  }

  #type(type: string, field: ProtoField, scope: string): SchemaBuilder {
    if (SCALAR_TYPES.has(type)) {
      switch (type) {
        case "int32":
        case "sint32":
        case "sfixed32": {
          const connectType = field.params.get("connect.type");
          if (connectType === "int8") return SchemaBuilder.int8();
          if (connectType === "int16") return SchemaBuilder.int16();
          return SchemaBuilder.int32();
        }
        case "float":
          return SchemaBuilder.float32();
        case "double":
          return SchemaBuilder.float64();
        case "bool":
          return SchemaBuilder.bool();
        case "string":
          return SchemaBuilder.string();
        case "bytes":
          return SchemaBuilder.bytes();
        default:
          return SchemaBuilder.int64();
      }
    }
    const named = this.types.resolve(type, scope);
    if (named.kind === "enum") {
      const simple = named.fullName.slice(named.fullName.lastIndexOf(".") + 1);
      const builder = SchemaBuilder.string().name(simple).parameter(`${PROTOBUF_NAMESPACE}.Enum`, simple);
      for (const v of named.values) {
        builder.parameter(`${PROTOBUF_NAMESPACE}.Enum.${v.name}`, String(v.number));
      }
      return builder.optional();
    }
    let builder: SchemaBuilder;
    switch (named.fullName) {
      case DECIMAL_TYPE: {
        builder = ConnectDecimal.builder(Number(field.params.get("scale") ?? 0));
        const precision = field.params.get("precision");
        if (precision !== undefined) builder.parameter("connect.decimal.precision", precision);
        break;
      }
      case DATE_TYPE:
        builder = ConnectDate.builder();
        break;
      case TIME_OF_DAY_TYPE:
        builder = ConnectTime.builder();
        break;
      case TIMESTAMP_TYPE:
        builder = ConnectTimestamp.builder();
        break;
      default:
        if (this.wrappers && named.fullName in WRAPPERS) {
          builder = this.#type(WRAPPERS[named.fullName], field, scope);
        } else {
          builder = this.struct(named, null);
        }
    }
    return builder.optional();
  }
}

/** The Connect schema of a message; `version` is the registry version. */
export function protoToConnectSchema(
  types: ProtoTypes,
  message: ProtoMessage,
  version: number | null,
  wrappers: boolean,
): Schema {
  return new Converter(types, wrappers).struct(message, version).build();
}
