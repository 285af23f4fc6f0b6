/**
 * Growable byte output and bounded byte input with the integer encodings both registry formats use: unsigned
 * base-128 varints (Protobuf tags and lengths), zig-zag varints (Avro int/long, Protobuf sint32/sint64, the
 * Confluent message indexes) and little-endian fixed-width numbers.
 *
 * 64-bit values travel as `bigint` only when they leave the safe-integer range, so the common case stays on the
 * fast `number` path; decoders return a `number` when the value is a safe integer (see schema.ts on INT64).
 */
import { DataException } from "../errors.ts";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const UINT64_MASK = (1n << 64n) - 1n;

/** A `number` when the value is a safe integer, otherwise the `bigint`. */
export function narrowInt64(value: bigint): number | bigint {
  return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

export class ByteWriter {
  #buffer = new Uint8Array(64);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  #ensure(extra: number): void {
    if (this.#length + extra <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.#length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = next;
  }

  byte(value: number): this {
    this.#ensure(1);
    this.#buffer[this.#length++] = value & 0xff;
    return this;
  }

  bytes(value: Uint8Array): this {
    this.#ensure(value.length);
    this.#buffer.set(value, this.#length);
    this.#length += value.length;
    return this;
  }

  /** An unsigned varint; a negative `number`/`bigint` is written as its 64-bit two's complement (Protobuf int32/int64). */
  uvarint(value: number | bigint): this {
    if (typeof value === "number" && value >= 0 && value <= 0x7fffffff) {
      let v = value;
      while (v > 0x7f) {
        this.byte((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      return this.byte(v);
    }
    let v = BigInt(value) & UINT64_MASK;
    while (v > 0x7fn) {
      this.byte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    return this.byte(Number(v));
  }

  /** A zig-zag varint of a signed 64-bit value (Avro int and long, Protobuf sint64, Kafka's `writeVarint`). */
  zigzag(value: number | bigint): this {
    if (typeof value === "number" && value >= -0x40000000 && value < 0x40000000) {
      return this.uvarint(value >= 0 ? value * 2 : -value * 2 - 1);
    }
    const v = BigInt(value);
    return this.uvarint(v >= 0n ? v << 1n : ((-v) << 1n) - 1n);
  }

  float32(value: number): this {
    this.#ensure(4);
    new DataView(this.#buffer.buffer).setFloat32(this.#length, value, true);
    this.#length += 4;
    return this;
  }

  float64(value: number): this {
    this.#ensure(8);
    new DataView(this.#buffer.buffer).setFloat64(this.#length, value, true);
    this.#length += 8;
    return this;
  }

  fixed32(value: number): this {
    this.#ensure(4);
    new DataView(this.#buffer.buffer).setUint32(this.#length, value >>> 0, true);
    this.#length += 4;
    return this;
  }

  fixed64(value: number | bigint): this {
    this.#ensure(8);
    new DataView(this.#buffer.buffer).setBigUint64(this.#length, BigInt(value) & UINT64_MASK, true);
    this.#length += 8;
    return this;
  }

  int32BigEndian(value: number): this {
    this.#ensure(4);
    new DataView(this.#buffer.buffer).setInt32(this.#length, value, false);
    this.#length += 4;
    return this;
  }

  /** A copy of the bytes written so far. */
  toBytes(): Uint8Array {
    return this.#buffer.slice(0, this.#length);
  }
}

export class ByteReader {
  #offset: number;
  readonly #view: DataView;

  constructor(readonly bytes: Uint8Array, offset = 0, readonly end = bytes.length) {
    this.#offset = offset;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get offset(): number {
    return this.#offset;
  }

  get remaining(): number {
    return this.end - this.#offset;
  }

  #need(count: number): void {
    if (count < 0 || this.#offset + count > this.end) {
      throw new DataException(`Truncated data: needed ${count} more bytes at offset ${this.#offset}`);
    }
  }

  byte(): number {
    this.#need(1);
    return this.bytes[this.#offset++];
  }

  take(count: number): Uint8Array {
    this.#need(count);
    const out = this.bytes.subarray(this.#offset, this.#offset + count);
    this.#offset += count;
    return out;
  }

  /** An unsigned varint of up to 64 bits, as a bigint. */
  uvarintBig(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result & UINT64_MASK;
    }
    throw new DataException("Malformed varint: more than 10 bytes");
  }

  /** An unsigned varint that must fit a safe integer (lengths, tags, counts). */
  uvarint(): number {
    let result = 0;
    let multiplier = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      result += (b & 0x7f) * multiplier;
      if ((b & 0x80) === 0) return result;
      multiplier *= 128;
    }
    throw new DataException("Malformed varint: value too large for a length");
  }

  /** A zig-zag varint (Avro int/long, sint64, Kafka varints). */
  zigzag(): number | bigint {
    const raw = this.uvarintBig();
    return narrowInt64((raw & 1n) === 0n ? raw >> 1n : -(raw >> 1n) - 1n);
  }

  float32(): number {
    this.#need(4);
    const v = this.#view.getFloat32(this.#offset, true);
    this.#offset += 4;
    return v;
  }

  float64(): number {
    this.#need(8);
    const v = this.#view.getFloat64(this.#offset, true);
    this.#offset += 8;
    return v;
  }

  fixed32(): number {
    this.#need(4);
    const v = this.#view.getUint32(this.#offset, true);
    this.#offset += 4;
    return v;
  }

  fixed64(): bigint {
    this.#need(8);
    const v = this.#view.getBigUint64(this.#offset, true);
    this.#offset += 8;
    return v;
  }

  int32BigEndian(): number {
    this.#need(4);
    const v = this.#view.getInt32(this.#offset, false);
    this.#offset += 4;
    return v;
  }
}
