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
 *    Each record's bytes are record_encoder.ts's; the request buffers are reused (request_buffers.ts).
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
import { type Message, recordBodySize, sizeOfVarInt, writeRecord } from "./record_encoder.ts";
import { requestBuffers } from "./request_buffers.ts";

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
/** Record batch header from FirstOffset to the records count (8+4+4+1+4+2+4+8+8+8+2+4+4). */
const BATCH_OVERHEAD = 61;

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
