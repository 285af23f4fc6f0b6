/**
 * Source offsets: the stores (file, Kafka topic) behind one interface, and the in-order commit tracker.
 * See docs/offsets.md for the formats and the guarantees.
 */
export type {
  OffsetEntry,
  OffsetPrimitive,
  OffsetStore,
  OffsetUpdate,
  SourceOffset,
  SourcePartition,
} from "./types.ts";
export { InvalidOffsetError } from "./validation.ts";
export { CorruptOffsetsError } from "./file_format.ts";
export { DEFAULT_FILE_FLUSH_DELAY_MS, FileOffsetStore, type FileOffsetStoreOptions } from "./file_store.ts";
export {
  DEFAULT_TOPIC_FLUSH_DELAY_MS,
  TopicOffsetStore,
  type TopicOffsetStoreOptions,
} from "./topic_store.ts";
export {
  DEFAULT_OFFSET_TOPIC_PARTITIONS,
  DEFAULT_OFFSET_TOPIC_READ_TIMEOUT_MS,
  DEFAULT_OFFSET_TOPIC_REPLICATION_FACTOR,
  KafkaOffsetLog,
  type KafkaOffsetLogOptions,
} from "./kafka_offset_log.ts";
export type { OffsetLog, OffsetLogRecord, OffsetLogWrite } from "./offset_log.ts";
export { createOffsetStore, OffsetStoreConfigError, type OffsetStoreDependencies } from "./factory.ts";
export { type CommittableOffsets, type SubmittedRecord, SubmittedRecords } from "./submitted_records.ts";
export { serializeOffsetKey } from "./offset_key.ts";
