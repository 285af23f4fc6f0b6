/**
 * The zig-zag varints of Confluent's Protobuf message indexes (the payload codecs are avsc's and protobufjs's).
 * 64-bit values come back as a `number` when safe, else a `bigint` (see schema.ts on INT64).
 */
import { DataException } from "../errors.ts";
import { normalizeInt64 } from "../values.ts";

export class ByteWriter {
  readonly #bytes: number[] = [];

  byte(value: number): this {
    this.#bytes.push(value & 0xff);
    return this;
  }

  /** A zig-zag varint of a signed 64-bit value. */
  zigzag(value: number | bigint): this {
    const v = BigInt(value);
    let u = BigInt.asUintN(64, v >= 0n ? v << 1n : ((-v) << 1n) - 1n);
    for (; u > 0x7fn; u >>= 7n) this.byte(Number(u & 0x7fn) | 0x80);
    return this.byte(Number(u));
  }

  /** A copy of the bytes written so far. */
  toBytes(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }
}

export class ByteReader {
  #offset: number;

  constructor(readonly bytes: Uint8Array, offset = 0) {
    this.#offset = offset;
  }

  get offset(): number {
    return this.#offset;
  }

  get remaining(): number {
    return this.bytes.length - this.#offset;
  }

  byte(): number {
    if (this.#offset >= this.bytes.length) {
      throw new DataException(`Truncated data: needed 1 more bytes at offset ${this.#offset}`);
    }
    return this.bytes[this.#offset++];
  }

  /** A zig-zag varint of up to 64 bits. */
  zigzag(): number | bigint {
    let raw = 0n;
    for (let shift = 0n;; shift += 7n) {
      if (shift >= 70n) throw new DataException("Malformed varint: more than 10 bytes");
      const b = this.byte();
      raw |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
    }
    raw = BigInt.asUintN(64, raw);
    return normalizeInt64((raw & 1n) === 0n ? raw >> 1n : -(raw >> 1n) - 1n);
  }
}
