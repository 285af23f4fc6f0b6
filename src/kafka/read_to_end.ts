/**
 * Reads a topic from its start to the end offsets it had when reading began, as a consumer of a group of its own
 * that never commits, `read_committed` (records of aborted transactions are not read). `tablesync verify` reads a
 * table's topic with it, and a source task seeds its reconcile state from its topic with it.
 */
import type { KafkaClient } from "./types.ts";

export interface ReadToEndOptions {
  /** Prefix of the throwaway consumer group's id (a UUID follows). */
  readonly groupPrefix: string;
  /** Longest the read may take before it fails, naming the partitions not read to their end. */
  readonly timeoutMs: number;
  /** A topic that does not exist reads as empty (otherwise asking for its offsets fails). */
  readonly missingAsEmpty?: boolean;
  /**
   * Bytes one fetch may return (`fetch.max.bytes` and `max.partition.fetch.bytes`): the records of a fetch are
   * decoded at once, so a reader that runs beside other work (a task seeding its reconcile state) keeps its
   * fetches small. Default: the consumer's (1 MiB a partition).
   */
  readonly fetchBytes?: number;
}

export async function readTopicToEnd(
  kafka: KafkaClient,
  topic: string,
  /** Called per record in offset order; a promise it returns holds the read until it settles (backpressure). */
  visit: (key: Uint8Array | null, value: Uint8Array | null) => void | Promise<void>,
  { groupPrefix, timeoutMs, missingAsEmpty = false, fetchBytes }: ReadToEndOptions,
): Promise<void> {
  const admin = await kafka.admin();
  const ends = new Map<number, number>();
  try {
    if (missingAsEmpty && !(await admin.topicExists(topic))) return;
    for (const { partition, low, high } of await admin.fetchTopicOffsets(topic)) {
      if (high > low) ends.set(partition, high);
    }
  } finally {
    await admin.close().catch(() => {});
  }
  if (ends.size === 0) return;
  const remaining = new Set(ends.keys());
  const { promise: allRead, resolve } = Promise.withResolvers<void>();
  const passed = (partition: number, next: number) => {
    const end = ends.get(partition);
    if (end !== undefined && next >= end && remaining.delete(partition) && remaining.size === 0) resolve();
  };
  const consumer = await kafka.consumer({ topics: [topic] }, {
    groupId: `${groupPrefix}-${crypto.randomUUID()}`,
    autoOffsetReset: "earliest",
    readCommitted: true,
    ...(fetchBytes === undefined ? {} : { maxPartitionFetchBytes: fetchBytes, fetchMaxBytes: fetchBytes }),
  });
  try {
    await consumer.run(async (batch) => {
      for (const r of batch.records) {
        if ((ends.get(batch.partition) ?? 0) > r.offset) await visit(r.key, r.value);
      }
      const last = batch.records[batch.records.length - 1];
      if (last) passed(batch.partition, last.offset + 1);
    }, { onPosition: ({ partition, offset }) => passed(partition, offset) });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      allRead.then(() => false),
      new Promise<boolean>((r) => timer = setTimeout(() => r(true), timeoutMs)),
    ]);
    clearTimeout(timer);
    if (late) {
      throw new Error(
        `reading ${topic} did not reach the end of partition(s) ${[...remaining]} in ${timeoutMs} ms`,
      );
    }
  } finally {
    await consumer.close().catch(() => {});
  }
}
