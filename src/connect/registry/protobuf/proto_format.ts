/**
 * The Protobuf registry format: schemas are .proto text (proto_from_connect.ts), payloads the message indexes
 * of the message type followed by the Protobuf encoding (proto_codec.ts). Values are written with the file's
 * first message (`[0]`, the one generated from the Connect schema); reading follows the indexes in the payload.
 */
import { DataException } from "../../errors.ts";
import type { Schema, SchemaAndValue } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { ByteReader, ByteWriter } from "../bytes.ts";
import type { FormatSchema, RegistryFormat } from "../registry_format.ts";
import { readMessageIndexes, writeMessageIndexes } from "../wire_format.ts";
import { ProtoCodec } from "./proto_codec.ts";
import { type NullableStyle, protoText } from "./proto_from_connect.ts";
import { parseProto } from "./proto_parser.ts";
import { protoToConnectSchema } from "./proto_to_connect.ts";
import { ProtoTypes } from "./proto_types.ts";

export interface ProtoSchema extends FormatSchema {
  readonly types: ProtoTypes;
  readonly codec: ProtoCodec;
}

export class ProtobufFormat implements RegistryFormat<ProtoSchema> {
  readonly schemaType = "PROTOBUF" as const;
  readonly displayName = "Protobuf";
  readonly tombstoneForRequiredSchema = true;
  readonly #connectSchemas = new WeakMap<ProtoSchema, Map<string, Schema>>();

  constructor(private readonly style: NullableStyle) {}

  fromConnectSchema(schema: Schema): ProtoSchema {
    return this.parse(protoText(schema, this.style));
  }

  parse(text: string): ProtoSchema {
    const file = parseProto(text);
    if (file.messages.length === 0) throw new DataException("The Protobuf schema defines no message");
    const types = new ProtoTypes(file);
    return {
      text,
      types,
      codec: new ProtoCodec(types, file.syntax === "proto3"),
      recordName: file.messages[0].fullName,
    };
  }

  serialize(writer: ProtoSchema, _schema: Schema, value: unknown): Uint8Array {
    if (!(value instanceof Struct)) throw new DataException("Protobuf values must be Structs");
    const out = new ByteWriter();
    writeMessageIndexes(out, [0]);
    return out.bytes(writer.codec.encode(writer.types.messageAt([0]), value)).toBytes();
  }

  deserialize(writer: ProtoSchema, payload: Uint8Array, version: number | null): SchemaAndValue {
    const reader = new ByteReader(payload);
    const indexes = readMessageIndexes(reader);
    const message = writer.types.messageAt(indexes);
    let cache = this.#connectSchemas.get(writer);
    if (cache === undefined) this.#connectSchemas.set(writer, cache = new Map());
    const key = `${indexes.join(".")}@${version}`;
    let schema = cache.get(key);
    if (schema === undefined) {
      cache.set(key, schema = protoToConnectSchema(writer.types, message, version, this.style.wrappers));
    }
    return { schema, value: writer.codec.decode(message, schema, payload.subarray(reader.offset)) };
  }
}
