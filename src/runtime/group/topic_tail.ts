/**
 * Follows a compacted topic from its beginning for as long as the member runs (Kafka Connect's KafkaBasedLog):
 * every record is handed to `apply` in partition order, and `readToEnd()` resolves once everything written
 * before the call has been applied. Writes go through one producer with acks=all.
 *
 * The Kafka layer offers group consumers only, so the tail uses a group of its own that never commits
 * (`tablesync-<purpose>-<uuid>`); every member therefore reads every record.
 */
import type { Admin, KafkaClient, Producer, RecordAck } from "../../kafka/mod.ts";
import type { ConsumedRecord, Consumer } from "../../kafka/mod.ts";
import { TopicCreationUnsupportedError } from "../../kafka/mod.ts";
import { logger } from "../../observability/log.ts";

const log = logger("group");

/** Session timeout of the tail's own consumer group: above the librdkafka mock's 3 s first-join delay. */
const TAIL_SESSION_TIMEOUT_MS = 10_000;

interface Waiter {
  ends: Map<number, number>;
  resolve: () => void;
}

export interface TopicTailOptions {
  topic: string;
  /** The worker key naming the topic, for error messages. */
  setting: string;
  /** The topic must have exactly one partition (its order is the order of changes). */
  singlePartition?: boolean;
  /** Names the tail's throwaway consumer group. */
  purpose: string;
  /**
   * Creates the topic (compacted) when it is missing, as Connect's distributed worker does; without it a
   * missing topic is an error. -1 = broker default.
   */
  create?: {
    partitions: number;
    replicationFactor: number;
    /** The worker keys of the two numbers, for error messages. */
    settings: string;
  };
  apply(record: ConsumedRecord): void;
}

export class TopicTail {
  readonly topic: string;
  readonly #kafka: KafkaClient;
  readonly #options: TopicTailOptions;
  #admin: Admin | null = null;
  #producer: Producer | null = null;
  #consumer: Consumer | null = null;
  /** Partition → next offset to apply. */
  readonly #positions = new Map<number, number>();
  #waiters: Waiter[] = [];

  constructor(kafka: KafkaClient, options: TopicTailOptions) {
    this.#kafka = kafka;
    this.#options = options;
    this.topic = options.topic;
  }

  /** Starts following and resolves once the topic was read to its end. */
  async start(): Promise<void> {
    this.#admin = await this.#kafka.admin();
    const { setting, singlePartition } = this.#options;
    await this.#ensureTopic(this.#admin);
    const partitions = (await this.#admin.partitionsFor(this.topic)).length;
    if (singlePartition && partitions !== 1) {
      throw new Error(
        `The topic "${this.topic}" (${setting}) has ${partitions} partitions; it must have exactly 1, because ` +
          `its order is the order of the changes`,
      );
    }
    this.#producer = await this.#kafka.producer({ acks: -1 });
    this.#consumer = await this.#kafka.consumer({ topics: [this.topic] }, {
      groupId: `tablesync-${this.#options.purpose}-${crypto.randomUUID()}`,
      autoOffsetReset: "earliest",
      sessionTimeoutMs: TAIL_SESSION_TIMEOUT_MS,
      fetchMaxWaitMs: 100,
    });
    await this.#consumer.run((batch) => {
      for (const record of batch.records) {
        this.#options.apply(record);
        this.#positions.set(record.partition, record.offset + 1);
      }
      this.#wake();
      return Promise.resolve();
    });
    await this.readToEnd();
  }

  /** Resolves once every record written before this call has been applied. */
  async readToEnd(): Promise<void> {
    const ends = new Map<number, number>();
    for (const { partition, low, high } of await this.#admin!.fetchTopicOffsets(this.topic)) {
      if (high > low) ends.set(partition, high);
    }
    if (this.#reached(ends)) return;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.push({ ends, resolve });
    await promise;
  }

  /** Resolves once the record at `offset` of `partition` (or a later one) has been applied. */
  async waitFor(partition: number, offset: number): Promise<void> {
    const ends = new Map([[partition, offset + 1]]);
    if (this.#reached(ends)) return;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.push({ ends, resolve });
    await promise;
  }

  /** Next offset to apply of the partition (0 before anything was read). */
  position(partition: number): number {
    return this.#positions.get(partition) ?? 0;
  }

  /** Appends records (acks=all); resolves with where they were written. */
  async write(
    records: { key: string; value: unknown; partition?: number }[],
  ): Promise<RecordAck[]> {
    const encoder = new TextEncoder();
    return await this.#producer!.send(records.map(({ key, value, partition }) => ({
      topic: this.topic,
      ...(partition === undefined ? {} : { partition }),
      key: encoder.encode(key),
      value: value === null ? null : encoder.encode(JSON.stringify(value)),
    })));
  }

  async close(): Promise<void> {
    for (const w of this.#waiters) w.resolve();
    this.#waiters = [];
    await this.#consumer?.close().catch(() => {});
    await this.#producer?.close().catch(() => {});
    await this.#admin?.close().catch(() => {});
  }

  async #ensureTopic(admin: Admin): Promise<void> {
    const { setting, singlePartition, create } = this.#options;
    const how = `create it as a compacted topic (cleanup.policy=compact${
      singlePartition ? ", exactly 1 partition" : ""
    })`;
    if (!create) {
      if (await admin.topicExists(this.topic)) return;
      throw new Error(`The topic "${this.topic}" (${setting}) does not exist: ${how}`);
    }
    const { partitions, replicationFactor } = create;
    try {
      // createTopic answers false for an existing topic (or one another member starting now created first),
      // once it serves.
      if (
        await admin.createTopic(this.topic, {
          partitions,
          replicationFactor,
          configs: { "cleanup.policy": "compact" },
        })
      ) log.info({ topic: this.topic, setting, partitions, replicationFactor }, "created the topic");
    } catch (error) {
      const reason = error instanceof TopicCreationUnsupportedError ? error.reason : (error as Error).message;
      throw new Error(
        `The topic "${this.topic}" (${setting}) does not exist and creating it with ${partitions} partition(s) ` +
          `and replication factor ${replicationFactor} (${create.settings}; -1 = broker default) failed ` +
          `(${reason}): ${how}`,
        { cause: error },
      );
    }
  }

  #reached(ends: Map<number, number>): boolean {
    return [...ends].every(([partition, end]) => this.position(partition) >= end);
  }

  #wake(): void {
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (this.#reached(w.ends)) w.resolve();
      else still.push(w);
    }
    this.#waiters = still;
  }
}

/** A record's value as JSON (null for a tombstone or a value that is not JSON). */
export function jsonValue(record: ConsumedRecord): unknown {
  if (record.value === null) return null;
  try {
    return JSON.parse(new TextDecoder().decode(record.value));
  } catch {
    return null;
  }
}

export function keyText(record: ConsumedRecord): string | null {
  return record.key === null ? null : new TextDecoder().decode(record.key);
}
