/** The worker section of an exactly-once daemon in integration tests: offsets in a topic of its own. */

/** A worker with exactly-once source support on, its offsets in `offsetsTopic` (created with `partitions`). */
export function exactlyOnceWorker(
  bootstrapServers: string,
  offsetsTopic: string,
  partitions = 1,
): Record<string, string | number> {
  return {
    "bootstrap.servers": bootstrapServers,
    "offset.storage.topic": offsetsTopic,
    "offset.storage.partitions": partitions,
    "offset.storage.replication.factor": 1,
    "exactly.once.source.support": "enabled",
  };
}
