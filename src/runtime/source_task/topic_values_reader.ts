/**
 * Reads a topic's records from its start to the end offsets it had when reading began, decoding keys and values
 * with the task's converters, as a consumer of a group of its own that never commits (read_committed, so aborted
 * transactions do not count). A source task seeds its reconcile state from its topic with it.
 */
import type { Converter } from "../../connect/converters/converter.ts";
import type { KafkaClient } from "../../kafka/mod.ts";

/** Longest a read may take before it fails. */
const READ_TIMEOUT_MS = 300_000;

export async function readTopicValues(
  kafka: KafkaClient,
  converters: { key: Converter; value: Converter },
  topic: string,
  visit: (key: unknown, value: unknown) => void,
): Promise<void> {
  const admin = await kafka.admin();
  const ends = new Map<number, number>();
  try {
    if (!(await admin.topicExists(topic))) return;
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
    groupId: `tablesync-seed-${crypto.randomUUID()}`,
    autoOffsetReset: "earliest",
    readCommitted: true,
  });
  try {
    await consumer.run((batch) => {
      for (const r of batch.records) {
        if ((ends.get(batch.partition) ?? 0) <= r.offset) continue;
        const key = converters.key.toConnectData(topic, r.key, []).value;
        visit(key, r.value === null ? null : converters.value.toConnectData(topic, r.value, []).value);
      }
      const last = batch.records[batch.records.length - 1];
      if (last) passed(batch.partition, last.offset + 1);
      return Promise.resolve();
    }, { onPosition: ({ partition, offset }) => passed(partition, offset) });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      allRead.then(() => false),
      new Promise<boolean>((r) => timer = setTimeout(() => r(true), READ_TIMEOUT_MS)),
    ]);
    clearTimeout(timer);
    if (late) throw new Error(`reading ${topic} did not reach the end of partition(s) ${[...remaining]}`);
  } finally {
    await consumer.close().catch(() => {});
  }
}
