/**
 * Group consumer with manual commits on top of kafkajs.
 *
 * - Never commits on its own: kafkajs runs with autoCommit off, and a batch's position only advances in memory
 *   once its handler returned. Offsets reach the group only through `commit`.
 * - A handler error is not retried: the consumer pauses everything it holds, stops delivering, and reports the
 *   error to `onCrash` (the client's: the task then closes it and fails; or the consumer's own: a reader fails its
 *   read). Redelivery after a restart starts from the last commit.
 * - Commits go straight to kafkajs's group member (captured by the rebalance hook), because kafkajs's public
 *   `commitOffsets` silently does nothing while its runner is not running (during the first join and on close),
 *   exactly when a rebalance listener needs to commit.
 * - Regex subscriptions are resolved against the topics that exist when the consumer starts, and a listed topic
 *   must exist (kafkajs limits; Java re-evaluates on metadata refresh). The sink driver therefore resolves its
 *   subscription itself and replaces the consumer when new topics appear (runtime/sink_task/sink_topics.ts).
 */
import type { Batch, Consumer as KafkajsConsumer, KafkaMessage } from "kafkajs";
import type { Logger } from "../observability/log.ts";
import { type KafkajsConsumerGroup } from "./rebalance_hook.ts";
import type {
  BatchHandler,
  ConsumedRecord,
  Consumer,
  ConsumerOptions,
  RebalanceListener,
  TopicPartition,
  TopicPartitionOffset,
} from "./types.ts";

export const DEFAULT_CONSUMER_OPTIONS: Omit<ConsumerOptions, "groupId"> = {
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 3_000,
  rebalanceTimeoutMs: 300_000,
  autoOffsetReset: "earliest",
  fetchMaxWaitMs: 500,
  maxPartitionFetchBytes: 1_048_576,
  fetchMaxBytes: 52_428_800,
  readCommitted: false,
};

export interface ConsumerHooksTarget {
  /** Set by client.ts's hooks on every join. */
  group: KafkajsConsumerGroup | null;
}

export class KafkajsConsumerAdapter implements Consumer {
  #consumer: KafkajsConsumer;
  #hooks: ConsumerHooksTarget;
  #listener: RebalanceListener;
  #onCrash: (error: Error) => void;
  #log: Logger;
  #crashed = false;
  /** The crash handler reports the error itself (a reader's read fails with it): the crash is a debug line. */
  #crashReported: boolean;
  #closing = false;
  #closed: Promise<void> | null = null;

  constructor(
    consumer: KafkajsConsumer,
    hooks: ConsumerHooksTarget,
    listener: RebalanceListener,
    onCrash: (error: Error) => void,
    log: Logger,
    crashReported = false,
  ) {
    this.#crashReported = crashReported;
    this.#consumer = consumer;
    this.#hooks = hooks;
    this.#listener = listener;
    this.#onCrash = onCrash;
    this.#log = log;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart && !this.#closing) this.#crash(payload.error);
    });
  }

  async run(
    handler: BatchHandler,
    { concurrentPartitions = 1, onPosition }: Parameters<Consumer["run"]>[1] = {},
  ): Promise<void> {
    if (onPosition) {
      // kafkajs reports every fetched batch here, also one whose records were all filtered out (transaction
      // markers, aborted records), which never reaches the handler.
      this.#consumer.on(this.#consumer.events.END_BATCH_PROCESS, ({ payload }) => {
        const { topic, partition, lastOffset } = payload as {
          topic: string;
          partition: number;
          lastOffset: string;
        };
        onPosition({ topic, partition, offset: Number(lastOffset) + 1 });
      });
    }
    await this.#consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: concurrentPartitions,
      eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
        if (this.#crashed || this.#closing || !isRunning() || isStale() || batch.messages.length === 0) {
          return;
        }
        const records = batch.messages.map((m) => toRecord(batch, m));
        try {
          await handler(
            {
              topic: batch.topic,
              partition: batch.partition,
              records,
              highWatermark: Number(batch.highWatermark),
            },
            { heartbeat, isRunning: () => isRunning() && !this.#closing && !this.#crashed },
          );
        } catch (error) {
          this.#crash(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        resolveOffset(batch.lastOffset());
      },
    });
  }

  async commit(offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    const group = this.#hooks.group;
    if (!group) throw new Error("cannot commit: the consumer has not joined its group yet");
    await group.commitOffsets({ topics: toTopicOffsets(offsets) });
  }

  pause(partitions: TopicPartition[]): void {
    this.#consumer.pause(byTopic(partitions));
  }

  resume(partitions: TopicPartition[]): void {
    this.#consumer.resume(byTopic(partitions));
  }

  seek({ topic, partition, offset }: TopicPartitionOffset): void {
    this.#consumer.seek({ topic, partition, offset: String(offset) });
  }

  assignment(): TopicPartition[] {
    const group = this.#hooks.group;
    if (!group) return [];
    return (group.assigned() as Array<{ topic: string; partitions: number[] }>)
      .flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    const held = this.assignment();
    if (held.length > 0 && this.#listener.onPartitionsRevoked && !this.#crashed) {
      try {
        await this.#listener.onPartitionsRevoked(held);
      } catch (error) {
        this.#log.error({ err: error }, "rebalance listener failed on close");
      }
    }
    this.#closing = true;
    await this.#consumer.disconnect();
  }

  #crash(error: Error): void {
    if (this.#crashed) return;
    this.#crashed = true;
    const held = this.assignment();
    if (held.length > 0) this.#consumer.pause(byTopic(held));
    if (this.#crashReported) {
      this.#log.debug({ error: error.message }, "consumer stopped delivering after an error");
    } else this.#log.error({ err: error }, "consumer stopped delivering after an error");
    this.#onCrash(error);
  }
}

function toRecord(batch: Batch, m: KafkaMessage): ConsumedRecord {
  const headers: Record<string, Uint8Array> = {};
  for (const [name, value] of Object.entries(m.headers ?? {})) {
    // Kafka allows repeated header keys; kafkajs then gives an array. Keep the last, as Headers.lastWithName does.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last === undefined) continue;
    headers[name] = typeof last === "string" ? new TextEncoder().encode(last) : asBytes(last);
  }
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: Number(m.offset),
    timestamp: Number(m.timestamp),
    key: m.key ? asBytes(m.key) : null,
    value: m.value ? asBytes(m.value) : null,
    headers,
  };
}

/** A plain Uint8Array view over a Buffer (no copy), so callers never depend on node's Buffer. */
function asBytes(b: Uint8Array): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function byTopic(partitions: TopicPartition[]): Array<{ topic: string; partitions: number[] }> {
  const map = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    const list = map.get(topic);
    if (list) list.push(partition);
    else map.set(topic, [partition]);
  }
  return [...map].map(([topic, ps]) => ({ topic, partitions: ps }));
}

export function toTopicOffsets(
  offsets: TopicPartitionOffset[],
): Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }> {
  const map = new Map<string, Array<{ partition: number; offset: string }>>();
  for (const { topic, partition, offset } of offsets) {
    const entry = { partition, offset: String(offset) };
    const list = map.get(topic);
    if (list) list.push(entry);
    else map.set(topic, [entry]);
  }
  return [...map].map(([topic, partitions]) => ({ topic, partitions }));
}
