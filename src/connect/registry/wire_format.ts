/**
 * Confluent's wire format (docs: schema-registry/fundamentals/serdes-develop, "Wire format"): byte 0 is the
 * magic byte `0x00`, bytes 1–4 the big-endian schema id, then the payload. Protobuf payloads start with the
 * message indexes: the path to the message type inside the .proto file, written as a zig-zag varint count and
 * zig-zag varint indexes, with the single byte `0x00` (a zero count) standing for `[0]` (the first top-level
 * message). The varints are protobufjs's `sint64`.
 */
import protobuf from "protobufjs";
import { DataException } from "../errors.ts";
import { normalizeInt64 } from "../values.ts";
import { dataCall } from "./registry_format.ts";

const MAGIC_BYTE = 0x00;

/** Prefixes `payload` with the magic byte and `schemaId`. */
export function frame(schemaId: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = MAGIC_BYTE;
  new DataView(out.buffer).setInt32(1, schemaId, false);
  out.set(payload, 5);
  return out;
}

/** Splits framed bytes (the payload is a view); throws `DataException` with the serializers' message otherwise. */
export function unframe(bytes: Uint8Array): { schemaId: number; payload: Uint8Array } {
  if (bytes.length < 5 || bytes[0] !== MAGIC_BYTE) throw new DataException("Unknown magic byte!");
  const schemaId = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(1, false);
  return { schemaId, payload: bytes.subarray(5) };
}

/** Reads zig-zag varints: a `number` when safe, else a `bigint` (see schema.ts on INT64). */
export class ByteReader {
  readonly #reader: protobuf.Reader;

  constructor(bytes: Uint8Array) {
    this.#reader = protobuf.Reader.create(bytes);
  }

  get offset(): number {
    return this.#reader.pos;
  }

  get remaining(): number {
    return this.#reader.len - this.#reader.pos;
  }

  zigzag(): number | bigint {
    const long = dataCall("Protobuf message index reading failed", () => this.#reader.sint64());
    return normalizeInt64(BigInt(long.toString()));
  }
}

/** Reads Protobuf message indexes; an empty count means `[0]`. */
export function readMessageIndexes(reader: ByteReader): number[] {
  const count = Number(reader.zigzag());
  if (count === 0) return [0];
  if (count < 0 || count > reader.remaining) throw new DataException(`Invalid message index count ${count}`);
  const indexes: number[] = [];
  for (let i = 0; i < count; i++) indexes.push(Number(reader.zigzag()));
  return indexes;
}
