/**
 * A task's state topic (connect/state_topic.ts) over the task's Kafka client: created compacted on first use
 * with the partitions the task asks for (broker-default replication), written through the task's producer in
 * batches (keys and values UTF-8, each entry to the partition it names), and read one partition at a time
 * (kafka/read_to_end.ts: a consumer of a group of its own that pauses every other partition and never commits).
 */
import type { StateTopic, StateTopicEntry } from "../../connect/state_topic.ts";
import { type KafkaClient, type Producer, readTopicToEnd } from "../../kafka/mod.ts";
import type { Logger } from "../../observability/log.ts";

/** Entries sent in one request at most. */
const BATCH_ENTRIES = 1000;
/** How long queued entries wait for others before they are sent. */
const LINGER_MS = 200;
/** Longest a partition read may take before it fails (the pass is tried again later). */
const READ_TIMEOUT_MS = 120_000;
/** Bytes a fetch of a partition returns at most (a few thousand entries): a pass holds a window, not fetches. */
const FETCH_BYTES = 262_144;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export async function openStateTopic(
  kafka: KafkaClient,
  producer: Producer,
  topic: string,
  partitions: number,
  log: Logger,
): Promise<StateTopic> {
  const admin = await kafka.admin();
  try {
    if (!(await admin.topicExists(topic))) {
      const created = await admin.createTopic(topic, {
        partitions,
        replicationFactor: -1,
        configs: { "cleanup.policy": "compact" },
      });
      if (created) log.info({ topic, partitions }, `created state topic ${topic}`);
    }
    const have = (await admin.partitionsFor(topic)).length;
    if (have !== partitions) {
      throw new Error(
        `state topic ${topic} has ${have} partitions, not the ${partitions} it needs: delete it`,
      );
    }
  } finally {
    await admin.close().catch(() => {});
  }
  return new KafkaStateTopic(kafka, producer, topic);
}

class KafkaStateTopic implements StateTopic {
  #queued: StateTopicEntry[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The send in flight (they go one after another). */
  #sending: Promise<void> = Promise.resolve();
  #inFlight = 0;
  #failure: Error | null = null;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly producer: Producer,
    private readonly topic: string,
  ) {}

  backlog(): number {
    return this.#queued.length + this.#inFlight;
  }

  write(entries: readonly StateTopicEntry[]): void {
    this.#queued.push(...entries);
    if (this.#queued.length >= BATCH_ENTRIES) this.#send();
    else this.#timer ??= setTimeout(() => this.#send(), LINGER_MS);
  }

  #send(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#queued;
    this.#queued = [];
    if (batch.length === 0) return this.#sending;
    this.#inFlight += batch.length;
    this.#sending = this.#sending.then(() =>
      this.producer.send(batch.map((e) => ({
        topic: this.topic,
        partition: e.partition,
        key: encoder.encode(e.key),
        value: e.value === null ? null : encoder.encode(e.value),
      }))).then(() => {}, (error) => {
        this.#failure = error instanceof Error ? error : new Error(String(error));
      }).finally(() => this.#inFlight -= batch.length)
    );
    return this.#sending;
  }

  async flush(): Promise<void> {
    await this.#send();
    const failure = this.#failure;
    this.#failure = null;
    if (failure) throw new Error(`writing state topic ${this.topic} failed: ${failure.message}`);
  }

  readPartition(partition: number, visit: (key: string, value: string | null) => void): Promise<void> {
    return readTopicToEnd(this.kafka, this.topic, (key, value) => {
      if (key !== null) visit(decoder.decode(key), value === null ? null : decoder.decode(value));
    }, {
      groupPrefix: "tablesync-state",
      timeoutMs: READ_TIMEOUT_MS,
      fetchBytes: FETCH_BYTES,
      partitions: [partition],
    });
  }

  async close(): Promise<void> {
    await this.flush().catch(() => {});
  }
}
