/**
 * The Protobuf registry format: schemas are .proto text (proto_from_connect.ts), payloads the message indexes
 * of the message type followed by the Protobuf encoding, written and read by protobufjs (proto_values.ts maps
 * Connect Structs to its message objects and back). Values are written with the file's first message (`[0]`,
 * the one generated from the Connect schema); reading follows the indexes in the payload.
 */
import { DataException } from "../../errors.ts";
import type { Schema, SchemaAndValue } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { ByteReader } from "../bytes.ts";
import type { FormatSchema, RegistryFormat } from "../registry_format.ts";
import { readMessageIndexes } from "../wire_format.ts";
import { type NullableStyle, protoText } from "./proto_from_connect.ts";
import { messageAt, parseProto, type ProtoFile, protoFullName } from "./proto_schema.ts";
import { protoToConnectSchema } from "./proto_to_connect.ts";
import { fromProtoMessage, toProtoMessage } from "./proto_values.ts";

export interface ProtoSchema extends FormatSchema {
  readonly file: ProtoFile;
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
    return { text, file, recordName: protoFullName(file.messages[0]) };
  }

  serialize(writer: ProtoSchema, _schema: Schema, value: unknown): Uint8Array {
    if (!(value instanceof Struct)) throw new DataException("Protobuf values must be Structs");
    const type = messageAt(writer.file, [0]);
    const message = toProtoMessage(type, value);
    const body = protobufjs("encoding", () => type.encode(message).finish());
    const out = new Uint8Array(body.length + 1); // message indexes [0]: the single byte 0
    out.set(body, 1);
    return out;
  }

  deserialize(writer: ProtoSchema, payload: Uint8Array, version: number | null): SchemaAndValue {
    const reader = new ByteReader(payload);
    const indexes = readMessageIndexes(reader);
    const type = messageAt(writer.file, indexes);
    let cache = this.#connectSchemas.get(writer);
    if (cache === undefined) this.#connectSchemas.set(writer, cache = new Map());
    const key = `${indexes.join(".")}@${version}`;
    let schema = cache.get(key);
    if (schema === undefined) {
      cache.set(key, schema = protoToConnectSchema(type, version, this.style.wrappers));
    }
    const message = protobufjs("decoding", () => type.decode(payload.subarray(reader.offset)));
    return { schema, value: fromProtoMessage(type, schema, message) };
  }
}

/** Runs a protobufjs call, reporting its errors (bad values, truncated bytes) as `DataException`. */
function protobufjs<T>(what: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw new DataException(`Protobuf ${what} failed: ${(error as Error).message}`);
  }
}
