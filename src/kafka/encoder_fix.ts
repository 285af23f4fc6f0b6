/**
 * Cheaper record encoding for kafkajs 2.2.4 (a CPU profile of a 100k-row backfill showed half of the task
 * thread's time in kafkajs's Encoder, most of it allocating tiny Buffers):
 *  - `writeUVarInt` built a JS array and a new Buffer for every varint (several per record and per header);
 *    it now writes the bytes straight into the encoder's buffer.
 *  - `writeVarLong` did the same through 64-bit Long arithmetic; values that fit in 32 bits (timestamp deltas
 *    within a batch, always, in practice) now take the varint path, which gives the same bytes (the 64-bit
 *    zig-zag of a 32-bit value equals its 32-bit zig-zag read as unsigned). Larger values keep kafkajs's code.
 *  - `ensureAvailable` grew the buffer with a zero-filled `Buffer.alloc`; it now uses `Buffer.allocUnsafe`: the
 *    bytes past `offset` are never read (`buffer` is `buf.slice(0, offset)`) and every byte below it is written.
 * The wire bytes are unchanged (tests/kafka/encoder_fix_test.ts compares them with the original methods).
 *
 * Importing this module installs the patch once, before any client exists (client.ts imports it).
 */
import { Buffer } from "node:buffer";
import EncoderModule from "kafkajs/src/protocol/encoder.js";

// deno-lint-ignore no-explicit-any
const Encoder = EncoderModule as any;
const PATCHED = Symbol.for("tablesync.kafkajs.encoderFix");
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

// deno-lint-ignore no-explicit-any
type EncoderThis = { buf: Buffer; offset: number; ensureAvailable(n: number): void } & Record<string, any>;

export const originalEncoderMethods = {
  writeUVarInt: Encoder.prototype.writeUVarInt as (this: EncoderThis, value: number) => unknown,
  writeVarLong: Encoder.prototype.writeVarLong as (this: EncoderThis, value: unknown) => unknown,
  ensureAvailable: Encoder.prototype.ensureAvailable as (this: EncoderThis, length: number) => void,
};

function writeUVarInt(this: EncoderThis, value: number) {
  this.ensureAvailable(5);
  const buf = this.buf;
  let at = this.offset;
  // kafkajs's loop condition, kept exactly: it treats `value` as a uint32 (the zig-zag of an int32).
  while ((value & 0xffffff80) !== 0) {
    buf[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[at++] = value & 0x7f;
  this.offset = at;
  return this;
}

function writeVarLong(this: EncoderThis, value: unknown) {
  if (typeof value === "number" && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) {
    return writeUVarInt.call(this, ((value << 1) ^ (value >> 31)) >>> 0);
  }
  return originalEncoderMethods.writeVarLong.call(this, value);
}

function ensureAvailable(this: EncoderThis, length: number) {
  if (this.offset + length <= this.buf.length) return;
  const grown = Buffer.allocUnsafe(Encoder.nextPowerOfTwo(this.offset + length));
  this.buf.copy(grown, 0, 0, this.offset);
  this.buf = grown;
}

if (!Encoder.prototype[PATCHED]) {
  Encoder.prototype[PATCHED] = true;
  Encoder.prototype.writeUVarInt = writeUVarInt;
  Encoder.prototype.writeVarLong = writeVarLong;
  Encoder.prototype.ensureAvailable = ensureAvailable;
}
