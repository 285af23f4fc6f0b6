/**
 * Reads a topic (or some of its partitions) from its start to the end offsets it had when reading began, as a
 * consumer of a group of its own that never commits, `read_committed` (records of aborted transactions are not
 * read). `tablesync verify` reads a table's topic with it, and a source task its reconcile state topic and the
 * topics it seeds that state from.
 *
 * The read fails (rejects), never its caller's task, when the consumer stops delivering after an error (a group
 * coordinator still loading after a broker came back): a reader is tried again by whoever asked for it.
 */
import type { ConsumedRecord, Consumer, ConsumerOptions, KafkaClient, TopicPartition } from "./types.ts";

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
  /** Reads only these partitions (the others are paused as soon as they are assigned). Default: every one. */
  readonly partitions?: readonly number[];
  /** The reading consumer's `session.timeout.ms`; default the consumer's. */
  readonly sessionTimeoutMs?: ConsumerOptions["sessionTimeoutMs"];
}

export async function readTopicToEnd(
  kafka: KafkaClient,
  topic: string,
  /**
   * Called per record in offset order (per partition), with the record itself; a promise it returns holds the
   * read until it settles (backpressure).
   */
  visit: (key: Uint8Array | null, value: Uint8Array | null, record: ConsumedRecord) => void | Promise<void>,
  { groupPrefix, timeoutMs, missingAsEmpty = false, fetchBytes, partitions, sessionTimeoutMs }:
    ReadToEndOptions,
): Promise<void> {
  const admin = await kafka.admin();
  const ends = new Map<number, number>();
  try {
    if (missingAsEmpty && !(await admin.topicExists(topic))) return;
    for (const { partition, low, high } of await admin.fetchTopicOffsets(topic)) {
      if (high > low && (partitions === undefined || partitions.includes(partition))) {
        ends.set(partition, high);
      }
    }
  } finally {
    await admin.close().catch(() => {});
  }
  if (ends.size === 0) return;
  const remaining = new Set(ends.keys());
  const { promise: allRead, resolve } = Promise.withResolvers<void>();
  const { promise: crashed, reject: crash } = Promise.withResolvers<never>();
  crashed.catch(() => {}); // raced below; a crash after the read ended is nobody's concern
  const passed = (partition: number, next: number) => {
    const end = ends.get(partition);
    if (end !== undefined && next >= end && remaining.delete(partition) && remaining.size === 0) resolve();
  };
  // Partitions not read are paused as soon as they are assigned (the group is joined in run(), once `consumer` is
  // set), so they cost no fetches.
  const unread = (assigned: TopicPartition[]) => assigned.filter((tp) => !ends.has(tp.partition));
  let consumer: Consumer | null = null;
  consumer = await kafka.consumer(
    { topics: [topic] },
    {
      groupId: `${groupPrefix}-${crypto.randomUUID()}`,
      autoOffsetReset: "earliest",
      readCommitted: true,
      ...(fetchBytes === undefined ? {} : { maxPartitionFetchBytes: fetchBytes, fetchMaxBytes: fetchBytes }),
      ...(sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs }),
      onCrash: (error) => crash(new Error(`reading ${topic} stopped: ${error.message}`, { cause: error })),
    },
    partitions === undefined ? {} : {
      onPartitionsAssigned: (assigned) => {
        const paused = unread(assigned);
        if (consumer && paused.length > 0) consumer.pause(paused);
      },
    },
  );
  try {
    await consumer.run(async (batch) => {
      const end = ends.get(batch.partition);
      if (end === undefined) return;
      for (const r of batch.records) {
        if (end > r.offset) await visit(r.key, r.value, r);
      }
      const last = batch.records[batch.records.length - 1];
      if (last) passed(batch.partition, last.offset + 1);
    }, { onPosition: ({ partition, offset }) => passed(partition, offset) });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      allRead.then(() => false),
      // Every partition read to its end counts, even when the consumer crashed right after.
      crashed.catch((error) => remaining.size === 0 ? false : Promise.reject(error)),
      new Promise<boolean>((r) => timer = setTimeout(() => r(true), timeoutMs)),
    ]).finally(() => clearTimeout(timer));
    if (late) {
      throw new Error(
        `reading ${topic} did not reach the end of partition(s) ${[...remaining]} in ${timeoutMs} ms`,
      );
    }
  } finally {
    await consumer.close().catch(() => {});
  }
}
