/**
 * What the topic store needs from Kafka: the offsets topic seen as a key/value log. Kept this small so the store's
 * logic (last write wins, tombstones, canonical keys) does not depend on how the Kafka layer reads and writes;
 * kafka_offset_log.ts implements it with src/kafka/.
 */

/** One record of the offsets topic. */
export interface OffsetLogRecord {
  readonly partition: number;
  readonly offset: number;
  /** Epoch ms; orders writes of one key that landed in different partitions (see topic_store.ts). */
  readonly timestamp: number;
  readonly key: Uint8Array | null;
  /** null = tombstone. */
  readonly value: Uint8Array | null;
}

/** One record to append; the partition is chosen from the key bytes as Kafka's default partitioner does. */
export interface OffsetLogWrite {
  readonly key: Uint8Array;
  readonly value: Uint8Array | null;
}

export interface OffsetLog {
  /** The topic's name, for messages. */
  readonly topic: string;
  /** Connects, creating the topic when it is missing and the cluster allows it. */
  start(): Promise<void>;
  /** Every record of every partition, from its beginning to its end offset captured when the call began. */
  readToEnd(): Promise<OffsetLogRecord[]>;
  /** Resolves once the broker acknowledged every record; rejects when any of them failed. */
  append(records: readonly OffsetLogWrite[]): Promise<void>;
  close(): Promise<void>;
}
