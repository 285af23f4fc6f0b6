/**
 * `io.confluent.connect.protobuf.ProtobufConverter`: Connect Structs as Protobuf messages in Confluent's wire
 * format, .proto schemas in the schema registry. Besides the registry settings it reads `wrapper.for.nullables`
 * and `optional.for.nullables` (both default false; see proto_from_connect.ts).
 *
 * Schemas are .proto text (proto_from_connect.ts), payloads the message indexes of the message type followed by
 * the Protobuf encoding, written and read by protobufjs (proto_values.ts maps Connect Structs to its message
 * objects and back). Values are written with the file's first message (`[0]`, the one generated from the
 * Connect schema); reading follows the indexes in the payload.
 */
import protobuf from "protobufjs";
import { DataException } from "../../errors.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { ByteReader, readMessageIndexes } from "../wire_format.ts";
import { dataCall, type FormatSchema, type PayloadReader, type RegistryFormat } from "../registry_format.ts";
import { type NullableStyle, protoText } from "./proto_from_connect.ts";
import { messageAt, parseProto, type ProtoFile, protoFullName } from "./proto_schema.ts";
import { protoToConnectSchema } from "./proto_to_connect.ts";
import { fromProtoMessage, toProtoMessage } from "./proto_values.ts";
import { booleanSetting } from "../../converters/config_values.ts";
import { RegistryConverter } from "../registry_converter.ts";
import { PROTOBUF_CONVERTER_CLASS } from "../registry_converter_classes.ts";

export interface ProtoSchema extends FormatSchema {
  readonly file: ProtoFile;
}

class ProtobufFormat implements RegistryFormat<ProtoSchema> {
  readonly schemaType = "PROTOBUF" as const;
  readonly displayName = "Protobuf";
  readonly tombstoneForRequiredSchema = true;

  constructor(private readonly style: NullableStyle) {}

  schemaText = (schema: Schema) => protoText(schema, this.style);

  parse(text: string): ProtoSchema {
    const file = parseProto(text);
    if (file.messages.length === 0) throw new DataException("The Protobuf schema defines no message");
    return { text, file, recordName: protoFullName(file.messages[0]) };
  }

  serialize(writer: ProtoSchema, _schema: Schema, value: unknown): Uint8Array {
    if (!(value instanceof Struct)) throw new DataException("Protobuf values must be Structs");
    const type = writer.file.messages[0];
    const message = toProtoMessage(type, value);
    const indexes = protobuf.Writer.create().uint32(0); // message indexes [0]: the single byte 0
    return dataCall("Protobuf encoding failed", () => type.encode(message, indexes).finish());
  }

  reader(writer: ProtoSchema, version: number | null): PayloadReader {
    const schemas = new Map<string, Schema>(); // by message index path
    return (payload) => {
      const reader = new ByteReader(payload);
      const indexes = readMessageIndexes(reader);
      const type = messageAt(writer.file, indexes);
      const key = indexes.join(".");
      let schema = schemas.get(key);
      if (schema === undefined) {
        schemas.set(key, schema = protoToConnectSchema(type, version, this.style.wrappers));
      }
      const body = payload.subarray(reader.offset);
      const message = dataCall("Protobuf decoding failed", () => type.decode(body));
      return { schema, value: fromProtoMessage(type, schema, message) };
    };
  }
}

export class ProtobufConverter extends RegistryConverter<ProtoSchema> {
  constructor() {
    super(PROTOBUF_CONVERTER_CLASS, (configs) =>
      new ProtobufFormat({
        wrappers: booleanSetting(configs, "wrapper.for.nullables", false),
        optionalLabel: booleanSetting(configs, "optional.for.nullables", false),
      }));
  }
}
