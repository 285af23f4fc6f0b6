/**
 * A produce request written straight into one buffer, for kafkajs 2.2.4 (a CPU profile of a 100k-row backfill
 * showed about half of the task thread's busy time in kafkajs building produce requests):
 *  - kafkajs builds every record in its own Encoder, and every header of it in another, each starting as a
 *    zero-filled 512-byte Buffer; it then copies the records into the batch body, the body into the batch, the
 *    batch into the partition's, the partition's into the topic's, the topic's into the request's, and the
 *    request twice more (header, then size prefix); its CRC-32C is a JavaScript loop. Every copy grows its target from 512 bytes by doubling, so a
 *    request of 1 MB makes about 10 MB of fresh Buffers: with the daemon's malloc tuning every one above 128 KB is
 *    a fresh mapping, paid for in page faults on first touch (copying into a fresh buffer measured 50 times
 *    slower than into a reused one).
 *  - Here: the request's exact size is computed first, one Buffer is allocated, with room in front for the
 *    request header and size prefix, and every record is written into its place once. `writeEncoder` then
 *    prepends the header and the size prefix into that room instead of copying the request (see `adopt`). The
 *    batch's CRC-32C is hash-wasm's (crc32c.ts).
 * The bytes are kafkajs's own, field by field (tests/kafka/produce_encoder_test.ts compares them with kafkajs's
 * encoding for records of every shape it accepts); anything this does not handle the same way (compression,
 * timestamps more than 24 days apart within a batch, keys, values or headers that are not Buffers or strings)
 * goes to kafkajs's own encoder.
 *
 * Installed by wrapping the produce request definition's `protocol` (looked up on every produce, so no kafkajs
 * module needs reloading) and `Encoder.prototype.writeEncoder`. Importing this module installs it once.
 */
import { Buffer } from "node:buffer";
import EncoderModule from "kafkajs/src/protocol/encoder.js";
import ProduceModule from "kafkajs/src/protocol/requests/produce/index.js";
import { crc32c } from "./crc32c.ts";
import "./encoder_fix.ts";

// deno-lint-ignore no-explicit-any
const Encoder = EncoderModule as any;
// deno-lint-ignore no-explicit-any
const Produce = ProduceModule as any;

const PATCHED = Symbol.for("tablesync.kafkajs.produceEncoder");
/** On an encoder whose `buf` starts inside a larger buffer of ours: that buffer (the bytes before are free). */
const ROOM = Symbol("tablesync.kafkajs.room");
/**
 * Bytes kept free in front of a request: its size prefix (4), API key and version (4), correlation id (4) and
 * client id (2 + its length). A longer client id only costs a copy (writeEncoder's own path).
 */
const HEADROOM = 256;
const MAGIC_BYTE = 2;
const TRANSACTIONAL_MASK = 16;
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
/** Record batch header from FirstOffset to the records count (8+4+4+1+4+2+4+8+8+8+2+4+4). */
const BATCH_OVERHEAD = 61;

type Bytes = Buffer | string;
interface Message {
  key?: Bytes | null;
  value?: Bytes | null;
  timestamp?: string | number;
  headers?: Record<string, Bytes | Bytes[]>;
}
interface PartitionData {
  partition: number;
  firstSequence?: number | null;
  messages: Message[];
}
interface ProduceArgs {
  acks: number;
  timeout: number;
  transactionalId?: string | null;
  producerId?: unknown;
  producerEpoch?: number | null;
  compression?: number;
  topicData: { topic: string; partitions: PartitionData[] }[];
}
// deno-lint-ignore no-explicit-any
type EncoderLike = { buf: Buffer; offset: number; [ROOM]?: Buffer } & Record<string, any>;

/** One partition's batch, as kafkajs's partitionsEncoder would build it. */
interface BatchPlan {
  data: PartitionData;
  firstTimestamp: string | number;
  maxTimestamp: string | number;
  /** Each record's timestamp delta and its body's size (what its length varint says). */
  deltas: number[];
  bodySizes: number[];
  /** Bytes of the record batch (FirstOffset onwards). */
  size: number;
}

function sizeOfUVarInt(value: number): number {
  let bytes = 1;
  while ((value & 0xffffff80) !== 0) {
    bytes++;
    value >>>= 7;
  }
  return bytes;
}

const zigZag = (value: number) => ((value << 1) ^ (value >> 31)) >>> 0;
const sizeOfVarInt = (value: number) => sizeOfUVarInt(zigZag(value));

function writeUVarInt(buf: Buffer, at: number, value: number): number {
  while ((value & 0xffffff80) !== 0) {
    buf[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[at++] = value & 0x7f;
  return at;
}

/**
 * Request buffers to reuse. A request's buffer is free again once the broker answered it (it had read every byte
 * by then); a request that gets no answer (acks=0, a timeout, a lost connection) leaves its buffer to the garbage
 * collector. A fresh buffer of 1 MB costs page faults on first touch (with the daemon's malloc tuning, every one
 * above 128 KB is a fresh mapping); a reused one does not.
 */
class RequestBuffers {
  #free: Buffer[] = [];
  /** Buffers kept: the driver has one request in flight at a time, the bench's bare loop a few. */
  static readonly KEPT = 4;
  /** Sizes are rounded up to this, so one buffer fits requests of about the same size. */
  static readonly UNIT = 256 * 1024;

  take(size: number): Buffer {
    for (let i = 0; i < this.#free.length; i++) {
      if (this.#free[i].length >= size) return this.#free.splice(i, 1)[0];
    }
    return Buffer.allocUnsafe(Math.ceil(size / RequestBuffers.UNIT) * RequestBuffers.UNIT);
  }

  give(buffer: Buffer): void {
    if (this.#free.length < RequestBuffers.KEPT) this.#free.push(buffer);
  }
}

const requestBuffers = new RequestBuffers();

/** UTF-8 bytes of header names (a handful of distinct names, used by every record). */
const headerNames = new Map<string, Buffer>();
function headerNameBytes(name: string): Buffer {
  let bytes = headerNames.get(name);
  if (bytes === undefined) {
    bytes = Buffer.from(name, "utf8");
    if (headerNames.size < 1024) headerNames.set(name, bytes);
  }
  return bytes;
}

/** Bytes of a key, value or header value, or -1 when kafkajs would write null; NaN when not handled here. */
function sizeOfBytes(value: unknown, nullable: boolean): number {
  if (Buffer.isBuffer(value)) return value.length;
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  if (nullable && value == null) return -1;
  return NaN;
}

function sizeOfVarIntBytes(size: number): number {
  return size < 0 ? 1 : sizeOfVarInt(size) + size;
}

/** A message's record body size (kafkajs's sizeOfBody), or NaN when this module leaves it to kafkajs. */
function recordBodySize(message: Message, offsetDelta: number, timestampDelta: number): number {
  if (!Number.isInteger(timestampDelta) || timestampDelta < INT32_MIN || timestampDelta > INT32_MAX) {
    return NaN;
  }
  const size = 1 + sizeOfVarInt(timestampDelta) + sizeOfVarInt(offsetDelta) +
    sizeOfVarIntBytes(sizeOfBytes(message.key, true)) + sizeOfVarIntBytes(sizeOfBytes(message.value, true));
  const headers = message.headers;
  if (headers === undefined) return size + sizeOfVarInt(0);
  if (headers === null || typeof headers !== "object") return NaN;
  return size + (sharedHeaders(headers)?.length ?? headersSize(headers));
}

/**
 * The encoded headers (their count, then each name and value) of a headers object seen before: the records of a
 * source's page share one headers object (producer.ts builds it once, and never changes it), so theirs are
 * encoded once and copied, not counted and written header by header for each record. A headers object is
 * encoded the second time it is seen in a row, so records with headers of their own cost nothing more.
 */
function sharedHeaders(headers: Headers): Buffer | undefined {
  const known = encodedHeaders.get(headers);
  if (known !== undefined || headers !== lastHeaders) {
    lastHeaders = headers;
    return known;
  }
  const size = headersSize(headers);
  if (Number.isNaN(size)) return undefined;
  const bytes = Buffer.allocUnsafe(size);
  writeHeaders(bytes, 0, headers);
  encodedHeaders.set(headers, bytes);
  return bytes;
}

type Headers = NonNullable<Message["headers"]>;
const encodedHeaders = new WeakMap<Headers, Buffer>();
let lastHeaders: Headers | null = null;

/** The size of a record's headers as written (count and pairs), or NaN when this module leaves them to kafkajs. */
function headersSize(headers: Headers): number {
  let size = 0;
  let count = 0;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    const nameSize = Buffer.byteLength(name, "utf8");
    for (const v of Array.isArray(value) ? value : [value]) {
      const valueSize = sizeOfBytes(v, false);
      size += sizeOfVarInt(nameSize) + nameSize + sizeOfVarInt(valueSize) + valueSize;
      count++;
    }
  }
  return size + sizeOfVarInt(count);
}

function writeBytes(buf: Buffer, at: number, value: unknown): number {
  if (value == null) return writeUVarInt(buf, at, zigZag(-1));
  if (typeof value === "string") {
    const length = Buffer.byteLength(value, "utf8");
    at = writeUVarInt(buf, at, zigZag(length));
    return at + buf.write(value, at, length, "utf8");
  }
  const bytes = value as Buffer;
  at = writeUVarInt(buf, at, zigZag(bytes.length));
  buf.set(bytes, at);
  return at + bytes.length;
}

/** kafkajs's Record v0: length, attributes, timestamp and offset deltas, key, value, headers. */
function writeRecord(
  buf: Buffer,
  at: number,
  message: Message,
  bodySize: number,
  offsetDelta: number,
  timestampDelta: number,
): number {
  at = writeUVarInt(buf, at, zigZag(bodySize));
  buf[at++] = 0;
  at = writeUVarInt(buf, at, zigZag(timestampDelta));
  at = writeUVarInt(buf, at, zigZag(offsetDelta));
  at = writeBytes(buf, at, message.key);
  at = writeBytes(buf, at, message.value);
  const headers = message.headers;
  if (headers === undefined) return writeUVarInt(buf, at, zigZag(0));
  const shared = sharedHeaders(headers);
  if (shared === undefined) return writeHeaders(buf, at, headers);
  buf.set(shared, at);
  return at + shared.length;
}

/** A record's headers: their count, then each name and value. */
function writeHeaders(buf: Buffer, at: number, headers: Headers): number {
  const names = Object.keys(headers);
  let count = 0;
  for (const name of names) {
    const value = headers[name];
    count += Array.isArray(value) ? value.length : 1;
  }
  at = writeUVarInt(buf, at, zigZag(count));
  for (const name of names) {
    const value = headers[name];
    const nameBytes = headerNameBytes(name);
    for (const v of Array.isArray(value) ? value : [value]) {
      at = writeUVarInt(buf, at, zigZag(nameBytes.length));
      buf.set(nameBytes, at);
      at += nameBytes.length;
      at = writeBytes(buf, at, v);
    }
  }
  return at;
}

/** A partition's batch plan, as kafkajs's partitionsEncoder computes timestamps; null when left to kafkajs. */
function planBatch(data: PartitionData): BatchPlan | null {
  const messages = data.messages;
  if (messages.length === 0) return null;
  const dateNow = Date.now();
  // kafkajs's own expressions, kept exactly (including the default sort of the timestamps as given).
  const messageTimestamps = messages.map((m) => m.timestamp).filter((t) => t != null).sort() as (
    | string
    | number
  )[];
  const timestamps = messageTimestamps.length === 0 ? [dateNow] : messageTimestamps;
  const firstTimestamp = timestamps[0];
  const maxTimestamp = timestamps[timestamps.length - 1];
  const deltas = new Array<number>(messages.length);
  const bodySizes = new Array<number>(messages.length);
  let size = BATCH_OVERHEAD;
  for (let i = 0; i < messages.length; i++) {
    const delta = ((messages[i].timestamp || dateNow) as number) - (firstTimestamp as number);
    const body = recordBodySize(messages[i], i, delta);
    if (Number.isNaN(body)) return null;
    deltas[i] = delta;
    bodySizes[i] = body;
    size += sizeOfVarInt(body) + body;
  }
  return { data, firstTimestamp, maxTimestamp, deltas, bodySizes, size };
}

/** The request body of kafkajs's produce v3 `encode` (v4–v7 are the same), or null to leave it to kafkajs. */
export function encodeProduceRequest(args: ProduceArgs): EncoderLike | null {
  if ((args.compression ?? 0) !== 0) return null;
  // kafkajs's defaults apply to undefined only (destructuring defaults).
  const transactionalId = args.transactionalId === undefined ? null : args.transactionalId;
  const producerId = args.producerId === undefined ? -1 : args.producerId;
  const producerEpoch = args.producerEpoch === undefined ? 0 : args.producerEpoch;
  const plans: BatchPlan[][] = [];
  let size = (transactionalId == null ? 2 : 2 + Buffer.byteLength(transactionalId, "utf8")) + 2 + 4 + 4;
  for (const { topic, partitions } of args.topicData) {
    const topicPlans: BatchPlan[] = [];
    size += 2 + Buffer.byteLength(topic, "utf8") + 4;
    for (const data of partitions) {
      const plan = planBatch(data);
      if (plan === null) return null;
      topicPlans.push(plan);
      size += 4 + 4 + plan.size;
    }
    plans.push(topicPlans);
  }
  const room = requestBuffers.take(HEADROOM + size);
  const encoder: EncoderLike = new Encoder(0);
  encoder.buf = room.subarray(HEADROOM) as Buffer;
  encoder.offset = 0;
  encoder.writeString(transactionalId).writeInt16(args.acks).writeInt32(args.timeout)
    .writeInt32(args.topicData.length);
  for (let t = 0; t < plans.length; t++) {
    encoder.writeString(args.topicData[t].topic).writeInt32(plans[t].length);
    for (const plan of plans[t]) {
      encoder.writeInt32(plan.data.partition).writeInt32(plan.size);
      writeBatch(encoder, plan, transactionalId, producerId, producerEpoch);
    }
  }
  // Sizes computed wrong would have grown (replaced) the buffer: the bytes are still right, the room is gone.
  if (encoder.buf.buffer === room.buffer && encoder.buf.byteOffset === room.byteOffset + HEADROOM) {
    encoder[ROOM] = room;
  }
  return encoder;
}

/** kafkajs's RecordBatch v0 (uncompressed), with its records, at the encoder's offset. */
function writeBatch(
  encoder: EncoderLike,
  plan: BatchPlan,
  transactionalId: string | null,
  producerId: unknown,
  producerEpoch: number | null,
): void {
  const messages = plan.data.messages;
  encoder.writeInt64(0).writeInt32(plan.size - 12).writeInt32(0).writeInt8(MAGIC_BYTE);
  const crcAt = encoder.offset;
  encoder.writeUInt32(0)
    .writeInt16(transactionalId ? TRANSACTIONAL_MASK : 0)
    .writeInt32(messages.length - 1)
    .writeInt64(plan.firstTimestamp)
    .writeInt64(plan.maxTimestamp)
    .writeInt64(producerId)
    .writeInt16(producerEpoch)
    .writeInt32(plan.data.firstSequence === undefined ? 0 : plan.data.firstSequence)
    .writeInt32(messages.length);
  const bodyStart = crcAt + 4;
  const end = bodyStart + plan.size - 21;
  encoder.ensureAvailable(end - encoder.offset);
  const buf = encoder.buf;
  let at = encoder.offset;
  for (let i = 0; i < messages.length; i++) {
    at = writeRecord(buf, at, messages[i], plan.bodySizes[i], i, plan.deltas[i]);
  }
  if (at !== end) {
    throw new Error(`produce request: batch of ${end - bodyStart} bytes planned, ${at - bodyStart} written`);
  }
  encoder.offset = at;
  buf.writeUInt32BE(crc32c(buf.subarray(bodyStart, end)), crcAt);
}

/**
 * `writeEncoder(value)` when `value` was written with room in front of it (a produce request, then the request
 * with its header): this encoder's bytes are copied into that room and this encoder takes the buffer over,
 * instead of copying the value behind its own bytes. The value is not used again (kafkajs's request framing
 * writes it once).
 */
function adopt(target: EncoderLike, value: EncoderLike): boolean {
  const room = value[ROOM];
  if (room === undefined) return false;
  const free = value.buf.byteOffset - room.byteOffset;
  if (target.offset > free) return false;
  const start = free - target.offset;
  room.set(target.buf.subarray(0, target.offset), start);
  target.buf = room.subarray(start) as Buffer;
  target.offset += value.offset;
  target[ROOM] = room;
  value[ROOM] = undefined;
  return true;
}

const originalWriteEncoder = Encoder.prototype.writeEncoder as (
  this: EncoderLike,
  value: unknown,
) => unknown;
export const originalProduceProtocol = Produce.protocol as (
  a: { version: number },
) => (args: ProduceArgs) => {
  request: { encode: () => Promise<unknown> };
  response: { decode: (payload: Buffer) => Promise<unknown>; parse: (data: unknown) => Promise<unknown> };
};

if (!Encoder.prototype[PATCHED]) {
  Encoder.prototype[PATCHED] = true;
  Encoder.prototype.writeEncoder = function writeEncoder(this: EncoderLike, value: EncoderLike) {
    if (value != null && adopt(this, value)) return this;
    return originalWriteEncoder.call(this, value);
  };
  Produce.protocol = ({ version }: { version: number }) => {
    const build = originalProduceProtocol({ version });
    if (version < 3) return build;
    return (args: ProduceArgs) => {
      const built = build(args);
      const original = built.request.encode;
      const response = built.response;
      let room: Buffer | undefined;
      built.request.encode = () => {
        const encoded = encodeProduceRequest(args);
        if (encoded === null) return original();
        room = encoded[ROOM];
        return Promise.resolve(encoded);
      };
      // The broker's answer: the request's buffer was read to its end, it can carry the next request.
      built.response = {
        ...response,
        decode: (payload: Buffer) => {
          if (room !== undefined) requestBuffers.give(room);
          room = undefined;
          return response.decode(payload);
        },
      };
      return built;
    };
  };
}
