/**
 * The offsets topic through our Kafka layer (src/kafka/): the OffsetLog the topic store reads and writes.
 *
 * - start(): creates the topic when it is missing (compacted, `offset.storage.partitions` ×
 *   `offset.storage.replication.factor`, as Connect's KafkaOffsetBackingStore does); a cluster that cannot create
 *   topics through the Admin API gets a clear error asking for the topic to be created.
 * - readToEnd(): captures every partition's end offset, then consumes from the beginning until each partition
 *   delivered its record just before that end (kafka/read_to_end.ts). The Kafka layer offers only group
 *   consumers, so the read joins a throwaway group (`tablesync-offsets-reader-<uuid>`) that never commits and is
 *   left at once; Connect reads with a group-less assigned consumer instead. It reads with
 *   isolation.level=read_committed, as Connect's offset reader does under exactly-once: offsets of aborted or
 *   open transactions (a crashed or fenced exactly-once task's) are never loaded. The end offsets are the high
 *   watermarks (kafkajs's admin lists offsets read_uncommitted), so a transaction still open there holds the read
 *   until it ends, at most its transaction.timeout.ms. A partition is complete once the consumer's position
 *   passed its end, transaction markers included.
 * - append(): one produce request with acks=all; the default partitioner hashes the key bytes like Java's.
 */
import {
  type Admin,
  type KafkaClient,
  type Producer,
  readTopicToEnd,
  TopicCreationUnsupportedError,
} from "../../kafka/mod.ts";
import { logger } from "../../observability/log.ts";
import type { OffsetLog, OffsetLogRecord, OffsetLogWrite } from "./offset_log.ts";

/** Connect's defaults for `offset.storage.partitions` and `offset.storage.replication.factor`. */
export const DEFAULT_OFFSET_TOPIC_PARTITIONS = 25;
export const DEFAULT_OFFSET_TOPIC_REPLICATION_FACTOR = 3;
/** Default limit on reading the whole topic at start. */
const DEFAULT_OFFSET_TOPIC_READ_TIMEOUT_MS = 120_000;

/** Session timeout of the reading consumer: above the librdkafka mock's 3 s first-join delay. */
const READER_SESSION_TIMEOUT_MS = 10_000;

export interface KafkaOffsetLogOptions {
  /** `offset.storage.topic`. */
  readonly topic: string;
  /** `offset.storage.partitions` for creation; -1 = broker default. Default 25. */
  readonly partitions?: number;
  /** `offset.storage.replication.factor` for creation; -1 = broker default. Default 3. */
  readonly replicationFactor?: number;
  /** Longest time start-up may spend reading the topic. Default DEFAULT_OFFSET_TOPIC_READ_TIMEOUT_MS. */
  readonly readTimeoutMs?: number;
}

export class KafkaOffsetLog implements OffsetLog {
  readonly topic: string;
  readonly #kafka: KafkaClient;
  readonly #options: KafkaOffsetLogOptions;
  readonly #log;
  #admin: Admin | null = null;
  #producer: Producer | null = null;

  constructor(kafka: KafkaClient, options: KafkaOffsetLogOptions) {
    this.#kafka = kafka;
    this.#options = options;
    this.topic = options.topic;
    this.#log = logger("offsets", { store: "topic", topic: options.topic });
  }

  async start(): Promise<void> {
    this.#admin = await this.#kafka.admin();
    try {
      await this.#ensureTopic(this.#admin);
      this.#producer = await this.#kafka.producer({ acks: -1 });
    } catch (error) {
      await this.close().catch(() => {});
      throw error;
    }
  }

  async readToEnd(): Promise<OffsetLogRecord[]> {
    this.#requireStarted(this.#admin);
    const records: OffsetLogRecord[] = [];
    await readTopicToEnd(this.#kafka, this.topic, (key, value, { partition, offset, timestamp }) => {
      records.push({ partition, offset, timestamp, key, value });
    }, {
      groupPrefix: "tablesync-offsets-reader",
      timeoutMs: this.#options.readTimeoutMs ?? DEFAULT_OFFSET_TOPIC_READ_TIMEOUT_MS,
      sessionTimeoutMs: READER_SESSION_TIMEOUT_MS,
    });
    return records;
  }

  async append(records: readonly OffsetLogWrite[]): Promise<void> {
    const producer = this.#requireStarted(this.#producer);
    if (records.length === 0) return;
    await producer.send(records.map(({ key, value }) => ({ topic: this.topic, key, value })));
  }

  async close(): Promise<void> {
    const producer = this.#producer;
    const admin = this.#admin;
    this.#producer = null;
    this.#admin = null;
    try {
      await producer?.close();
    } finally {
      await admin?.close();
    }
  }

  async #ensureTopic(admin: Admin): Promise<void> {
    // No existence check first: createTopic also waits until a topic another member just created serves.
    const partitions = this.#options.partitions ?? DEFAULT_OFFSET_TOPIC_PARTITIONS;
    const replicationFactor = this.#options.replicationFactor ?? DEFAULT_OFFSET_TOPIC_REPLICATION_FACTOR;
    try {
      const created = await admin.createTopic(this.topic, {
        partitions,
        replicationFactor,
        configs: { "cleanup.policy": "compact" },
      });
      if (created) this.#log.info({ partitions, replicationFactor }, "created the offsets topic");
    } catch (error) {
      const how = `create it as a compacted topic (cleanup.policy=compact), e.g. ${partitions} partitions ` +
        `with replication factor ${replicationFactor} (offset.storage.partitions, offset.storage.replication.factor)`;
      if (error instanceof TopicCreationUnsupportedError) {
        throw new Error(
          `The offsets topic "${this.topic}" does not exist and this cluster cannot create it through the Admin ` +
            `API (${error.reason}): ${how}`,
          { cause: error },
        );
      }
      throw new Error(
        `The offsets topic "${this.topic}" does not exist and creating it failed (${
          (error as Error).message
        }): ${how}`,
        { cause: error },
      );
    }
  }

  #requireStarted<T>(client: T | null): T {
    if (client === null) throw new Error(`The offsets topic "${this.topic}" is not open`);
    return client;
  }
}
