/**
 * A compacted Kafka topic of a task's own keyed state, partitioned by the task (not by key hash), so that the
 * entries of one partition can be read alone. The source's reconcile passes keep their comparison state in one
 * (src/source/reconcile/); the runtime implements it over its Kafka client (runtime/source_task/state_topic_store.ts).
 */

/** One entry: `value` null deletes the key (a tombstone). */
export interface StateTopicEntry {
  readonly partition: number;
  readonly key: string;
  readonly value: string | null;
}

export interface StateTopic {
  /** Queues entries; they are sent in the background, a batch at a time. */
  write(entries: readonly StateTopicEntry[]): void;
  /** Entries queued or in flight, not yet acknowledged (the writer's memory: a caller may wait for `flush`). */
  backlog(): number;
  /** Resolves once every entry queued so far was acknowledged by Kafka. */
  flush(): Promise<void>;
  /**
   * Visits every entry of one partition from its start to the end it had when reading began, in offset order
   * (later entries of a key come after earlier ones; a tombstone is visited with value null).
   */
  readPartition(partition: number, visit: (key: string, value: string | null) => void): Promise<void>;
  close(): Promise<void>;
}
