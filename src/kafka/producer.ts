/**
 * Producer with per-record acknowledgements on top of kafkajs.
 *
 * Precise offsets: kafkajs answers a send with one base offset per topic-partition. Records of one partition in
 * one request get consecutive offsets in the order given, so a record's offset is the base offset plus its index
 * among that partition's records. To know each record's partition, our partitioner (the Java-compatible default:
 * murmur2 of the key, else round robin) writes its choice onto the message; that also pins the partition if
 * kafkajs retries the request, so a retry cannot move records between partitions.
 *
 * Linger: kafkajs sends each `send` call as its own request. With `lingerMs > 0`, calls arriving within that
 * window (or until `batchSizeBytes` is reached) are merged into one request across topics, like the Java producer.
 *
 * Request size: kafkajs puts all of a call's records for one partition into one record batch, and a broker refuses a
 * batch larger than its message.max.bytes (1 MiB by default) with MESSAGE_TOO_LARGE. Like the Java producer's
 * max.request.size (mapped to `maxRequestBytes`, default MAX_REQUEST_BYTES), records are split into requests of about that size, sent one
 * after another in order; a single record larger than that goes alone, and the broker's answer names the problem.
 *
 * Missing acknowledgements: kafkajs can resolve a send without having sent some partitions (see #dispatch);
 * those records are sent again, so every resolved ack names a record the broker really acknowledged.
 */
import { Buffer } from "node:buffer";
import { type Message, Partitioners, type Producer as KafkajsProducer } from "kafkajs";
import type { Logger } from "../observability/log.ts";
import { murmur2 } from "./murmur2.ts";
import { retryUntilDelivered } from "./delivery_retry.ts";
import type { KafkaOutage } from "./outage.ts";
import type { ProducedRecord, Producer, ProducerOptions, RecordAck } from "./types.ts";

/**
 * Record bytes per request: under the broker's default message.max.bytes (1048588) with room for the batch header
 * and each record's varint framing, which approximateSize counts only roughly.
 */
const MAX_REQUEST_BYTES = 1_000_000;

export const DEFAULT_PRODUCER_OPTIONS: ProducerOptions = {
  acks: -1,
  compression: "none",
  lingerMs: 0,
  batchSizeBytes: 16_384,
  maxRequestBytes: MAX_REQUEST_BYTES,
  retries: Number.MAX_SAFE_INTEGER,
  deliveryTimeoutMs: 120_000,
  retryBackoffMs: 100,
  retryBackoffMaxMs: 1_000,
  transactionTimeoutMs: 60_000,
};

/**
 * kafkajs's own retries of one attempt (a leader moved, a metadata refresh): few, so that an attempt ends soon when
 * the cluster is away and retryUntilDelivered decides, by delivery.timeout.ms, whether to try again.
 */
export const ATTEMPT_RETRIES = 2;

/**
 * A kafkajs partitioner factory that records the chosen partition on each message (see the module comment). Keyed
 * messages take kafkajs's DefaultPartitioner's choice, computed without its per-message costs (a filtered copy of
 * the partition list and a 64-bit Long per hash step): murmur2 of the key, made positive, modulo the partitions.
 */
export function pinningPartitioner() {
  const choose = Partitioners.DefaultPartitioner();
  return (args: { topic: string; partitionMetadata: unknown[]; message: Message }): number => {
    const message = args.message;
    let partition: number;
    if (message.partition !== null && message.partition !== undefined) partition = message.partition;
    else if (Buffer.isBuffer(message.key)) {
      partition = (murmur2(message.key) & 0x7fffffff) % args.partitionMetadata.length;
    } else partition = choose(args as Parameters<typeof choose>[0]);
    message.partition = partition;
    return partition;
  };
}

/**
 * What the adapter needs of kafkajs: a producer, or one of its transactions (which has no disconnect of its own:
 * transactional_producer.ts ends those with commit or abort).
 */
export type KafkajsSender = Pick<KafkajsProducer, "sendBatch"> & { disconnect?(): Promise<void> };

interface Pending {
  records: ProducedRecord[];
  resolve: (acks: RecordAck[]) => void;
  reject: (error: unknown) => void;
}

const COMPRESSION_CODES = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;

/** Requests per send before records the broker never acknowledged are reported as failed. */
const MAX_RESEND_ROUNDS = 5;

export class KafkajsProducerAdapter implements Producer {
  #producer: KafkajsSender;
  #options: ProducerOptions;
  #log: Logger;
  #lingering: Pending[] = [];
  #lingeringBytes = 0;
  #lingerTimer: ReturnType<typeof setTimeout> | undefined;
  #inFlight = new Set<Promise<unknown>>();
  /** Settles once every request begun so far has settled (what a retried request waits for). */
  #sent: Promise<void> = Promise.resolve();
  /** Requests that failed once and have not settled: while there are any, a later request waits its turn. */
  #retrying = 0;
  #closed = false;
  #outage: KafkaOutage | undefined;

  constructor(producer: KafkajsSender, options: ProducerOptions, log: Logger, outage?: KafkaOutage) {
    this.#producer = producer;
    this.#options = options;
    this.#log = log;
    this.#outage = outage;
  }

  send(records: ProducedRecord[]): Promise<RecordAck[]> {
    if (this.#closed) return Promise.reject(new Error("producer is closed"));
    if (records.length === 0) return Promise.resolve([]);
    if (this.#options.lingerMs === 0) return this.#track(this.#dispatch(records));
    return new Promise<RecordAck[]>((resolve, reject) => {
      this.#lingering.push({ records, resolve, reject });
      this.#lingeringBytes += records.reduce((n, r) => n + approximateSize(r), 0);
      if (this.#lingeringBytes >= this.#options.batchSizeBytes) this.#sendLingering();
      else this.#lingerTimer ??= setTimeout(() => this.#sendLingering(), this.#options.lingerMs);
    });
  }

  async flush(): Promise<void> {
    this.#sendLingering();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    await this.#producer.disconnect?.();
  }

  #sendLingering(): void {
    clearTimeout(this.#lingerTimer);
    this.#lingerTimer = undefined;
    const batch = this.#lingering;
    if (batch.length === 0) return;
    this.#lingering = [];
    this.#lingeringBytes = 0;
    const all = batch.flatMap((p) => p.records);
    void this.#track(this.#dispatch(all)).then(
      (acks) => {
        let at = 0;
        for (const p of batch) {
          p.resolve(acks.slice(at, at + p.records.length));
          at += p.records.length;
        }
      },
      (error) => batch.forEach((p) => p.reject(error)),
    );
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    // The tracking copy only tells flush() when the send settled; the caller handles the outcome.
    const settled = promise.then(() => {}, () => {}).finally(() => this.#inFlight.delete(settled));
    this.#inFlight.add(settled);
    return promise;
  }

  async #dispatch(records: ProducedRecord[]): Promise<RecordAck[]> {
    const acks: RecordAck[] = [];
    for (const request of splitByRequestSize(records, this.#options.maxRequestBytes)) {
      acks.push(...await this.#dispatchRequest(request));
    }
    return acks;
  }

  async #dispatchRequest(records: ProducedRecord[]): Promise<RecordAck[]> {
    const now = Date.now();
    const messages = records.map((r) => toMessage(r, now));
    const acks: Array<RecordAck | undefined> = new Array(records.length);
    let pending = records.map((_, i) => i);
    for (let round = 1; pending.length > 0; round++) {
      const baseOffsets = await this.#sendOnce(records, messages, pending);
      // Records' next index per topic and partition; the topic's maps are looked up once per run of its records.
      const nextIndex = new Map<string, Map<number, number>>();
      const missing: number[] = [];
      let topicOf: string | undefined;
      let bases: Map<number, number> | undefined;
      let next = new Map<number, number>();
      for (const i of pending) {
        const topic = records[i].topic;
        const partition = messages[i].partition!;
        if (this.#options.acks === 0) {
          acks[i] = { topic, partition, offset: -1 };
          continue;
        }
        if (topic !== topicOf) {
          topicOf = topic;
          bases = baseOffsets.get(topic);
          let known = nextIndex.get(topic);
          if (known === undefined) nextIndex.set(topic, known = new Map());
          next = known;
        }
        const base = bases?.get(partition);
        if (base === undefined) {
          missing.push(i);
          continue;
        }
        const index = next.get(partition) ?? 0;
        next.set(partition, index + 1);
        acks[i] = { topic, partition, offset: base + index };
      }
      if (missing.length > 0) {
        // kafkajs 2.2.4 bug: when a retry moves a partition to a broker that already answered, that partition is
        // never sent, yet sendBatch resolves. Those records were not written: send them again (same partitions).
        const partitions = [...new Set(missing.map((i) => `${records[i].topic}-${messages[i].partition}`))];
        if (round >= MAX_RESEND_ROUNDS) {
          throw new Error(`no acknowledgement for ${partitions.join(", ")} after ${round} requests`);
        }
        this.#log.warn(
          { partitions, round },
          "broker response lacks partitions that were sent to; sending again",
        );
      }
      pending = missing;
    }
    return acks as RecordAck[];
  }

  /** One kafkajs sendBatch of the `pending` records; returns the base offset per topic and partition (first answer wins). */
  async #sendOnce(
    records: ProducedRecord[],
    messages: Message[],
    pending: number[],
  ): Promise<Map<string, Map<number, number>>> {
    const byTopic = new Map<string, Message[]>();
    for (const i of pending) {
      const topic = records[i].topic;
      const list = byTopic.get(topic);
      if (list) list.push(messages[i]);
      else byTopic.set(topic, [messages[i]]);
    }
    const batch = {
      acks: this.#options.acks,
      compression: COMPRESSION_CODES[this.#options.compression],
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    };
    // Retried while Kafka is out of reach, up to delivery.timeout.ms; records keep their pinned partitions. While
    // an earlier send is being retried, this one waits for it to settle before each attempt: records of one key
    // in two sends land in the order sent (a later send's retry must not land before an earlier one's).
    const earlier = this.#sent;
    const { promise: settled, resolve } = Promise.withResolvers<void>();
    this.#sent = earlier.then(() => settled);
    let failed = false;
    let response;
    try {
      response = await retryUntilDelivered(
        async () => {
          if (failed || this.#retrying > 0) await earlier;
          try {
            return await this.#producer.sendBatch(batch);
          } catch (error) {
            if (!failed) this.#retrying++;
            failed = true;
            throw error;
          }
        },
        this.#options,
        this.#outage,
      );
    } finally {
      if (failed) this.#retrying--;
      resolve();
    }
    const baseOffsets = new Map<string, Map<number, number>>();
    for (const r of response) {
      let bases = baseOffsets.get(r.topicName);
      if (bases === undefined) baseOffsets.set(r.topicName, bases = new Map());
      // When a retry moves a partition from an answered broker to another one, kafkajs writes it twice and
      // reports it twice; the first answer covers the first copy, which is as good as the second.
      if (!bases.has(r.partition) && r.baseOffset !== undefined) bases.set(r.partition, Number(r.baseOffset));
    }
    return baseOffsets;
  }
}

/** Consecutive runs of records of at most `limit` bytes each (a larger record is a run of its own). */
export function splitByRequestSize(records: ProducedRecord[], limit = MAX_REQUEST_BYTES): ProducedRecord[][] {
  const requests: ProducedRecord[][] = [];
  let current: ProducedRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = approximateSize(record);
    if (current.length > 0 && bytes + size > limit) {
      requests.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

function toMessage(record: ProducedRecord, now: number): Message {
  const message: Message = {
    key: record.key === null ? null : asBuffer(record.key),
    value: record.value === null ? null : asBuffer(record.value),
    timestamp: String(record.timestamp ?? now),
  };
  if (record.partition !== undefined) message.partition = record.partition;
  if (record.headers) message.headers = messageHeaders(record.headers);
  return message;
}

/**
 * kafkajs's headers of a record's headers, shared by the records that share one headers object (a source's
 * records of a page do: runtime/task/record_bytes.ts), so each record awaiting its ack does not hold its own set of
 * Buffer views. Neither is mutated once built.
 */
const messageHeadersOf = new WeakMap<ProducedRecord["headers"] & object, Record<string, Buffer | string>>();

function messageHeaders(
  recordHeaders: NonNullable<ProducedRecord["headers"]>,
): Record<string, Buffer | string> {
  let headers = messageHeadersOf.get(recordHeaders);
  if (headers === undefined) {
    headers = {};
    for (const [name, value] of Object.entries(recordHeaders)) {
      headers[name] = typeof value === "string" ? value : asBuffer(value);
    }
    messageHeadersOf.set(recordHeaders, headers);
  }
  return headers;
}

/** A Buffer view over the same memory (kafkajs's encoder expects Buffers). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function approximateSize(r: ProducedRecord): number {
  let n = (r.key?.byteLength ?? 0) + (r.value?.byteLength ?? 0) + 16;
  const headers = r.headers;
  if (headers) { for (const name in headers) n += name.length + headers[name].length; }
  return n;
}
