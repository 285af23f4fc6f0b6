/**
 * Confluent's wire format (docs: schema-registry/fundamentals/serdes-develop, "Wire format"): byte 0 is the
 * magic byte `0x00`, bytes 1–4 the big-endian schema id, then the payload. Protobuf payloads start with the
 * message indexes: the path to the message type inside the .proto file, written as a zig-zag varint count and
 * zig-zag varint indexes, with the single byte `0x00` standing for `[0]` (the first top-level message).
 */
import { DataException } from "../errors.ts";
import { ByteReader, ByteWriter } from "./bytes.ts";

export const MAGIC_BYTE = 0x00;

export interface FramedPayload {
  readonly schemaId: number;
  /** The bytes after the 5-byte header (a view, not a copy). */
  readonly payload: Uint8Array;
}

/** Prefixes `payload` with the magic byte and `schemaId`. */
export function frame(schemaId: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = MAGIC_BYTE;
  new DataView(out.buffer).setInt32(1, schemaId, false);
  out.set(payload, 5);
  return out;
}

/** Splits framed bytes; throws `DataException` with the serializers' message for anything else. */
export function unframe(bytes: Uint8Array): FramedPayload {
  if (bytes.length < 5 || bytes[0] !== MAGIC_BYTE) throw new DataException("Unknown magic byte!");
  const schemaId = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(1, false);
  return { schemaId, payload: bytes.subarray(5) };
}

/** Writes Protobuf message indexes (`[0]` as the single byte 0). */
export function writeMessageIndexes(writer: ByteWriter, indexes: readonly number[]): void {
  if (indexes.length === 1 && indexes[0] === 0) {
    writer.byte(0);
    return;
  }
  writer.zigzag(indexes.length);
  for (const index of indexes) writer.zigzag(index);
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
