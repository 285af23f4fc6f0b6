/**
 * Partitions where a transaction is open: their last stable offset (where a read_committed consumer ends) is
 * below their high watermark. A transactional producer that has just been initialised looks for them on the
 * topics its id wrote before (transactional_producer.ts, "Hanging transactions").
 */
import type { Admin, TopicPartition } from "./types.ts";

export async function partitionsWithOpenTransactions(
  admin: Admin,
  topics: readonly string[],
): Promise<TopicPartition[]> {
  const open: TopicPartition[] = [];
  for (const topic of new Set(topics)) {
    // A topic not created yet holds nothing of anyone's.
    if (!(await admin.topicExists(topic))) continue;
    const highWatermarks = await admin.fetchHighWatermarks(topic);
    for (const { partition, high: lastStable } of await admin.fetchTopicOffsets(topic)) {
      if (lastStable < (highWatermarks.get(partition) ?? lastStable)) open.push({ topic, partition });
    }
  }
  return open;
}
