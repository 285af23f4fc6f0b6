/**
 * Chooses the source offset store from the worker config, as Kafka Connect's worker keys do:
 * `offset.storage.topic` set → the topic store (a Kafka client is then required); otherwise
 * `offset.storage.file.filename` → the file store. `offset.flush.interval.ms` is the coalescing delay of either
 * store (our default 1000 ms: offsets are written soon after acks, not every 60 s as in Connect).
 *
 * Values may be the raw strings of the config file or already typed numbers.
 */
import { ConfigError } from "../../common/config_error.ts";
import type { KafkaClient } from "../../kafka/mod.ts";
import { DEFAULT_FILE_FLUSH_DELAY_MS, FileOffsetStore } from "./file_store.ts";
import {
  DEFAULT_OFFSET_TOPIC_PARTITIONS,
  DEFAULT_OFFSET_TOPIC_REPLICATION_FACTOR,
  KafkaOffsetLog,
} from "./kafka_offset_log.ts";
import { TopicOffsetStore } from "./topic_store.ts";
import type { OffsetStore } from "./types.ts";

const OFFSET_STORAGE_TOPIC = "offset.storage.topic";
const OFFSET_STORAGE_FILE = "offset.storage.file.filename";
const OFFSET_STORAGE_PARTITIONS = "offset.storage.partitions";
const OFFSET_STORAGE_REPLICATION_FACTOR = "offset.storage.replication.factor";
const OFFSET_FLUSH_INTERVAL = "offset.flush.interval.ms";

/** The worker config cannot give a usable offset store. A `ConfigError`. */
export class OffsetStoreConfigError extends ConfigError {}

export interface OffsetStoreDependencies {
  /** The worker's Kafka client; required when `offset.storage.topic` is set. */
  readonly kafka?: KafkaClient;
}

/** Builds (does not start) the store the worker config asks for. */
export function createOffsetStore(
  worker: Readonly<Record<string, unknown>>,
  dependencies: OffsetStoreDependencies = {},
): OffsetStore {
  const flushDelayMs = integer(worker, OFFSET_FLUSH_INTERVAL, DEFAULT_FILE_FLUSH_DELAY_MS, 0);
  const topic = text(worker, OFFSET_STORAGE_TOPIC);
  if (topic !== null) {
    if (!dependencies.kafka) {
      throw new OffsetStoreConfigError(
        `${OFFSET_STORAGE_TOPIC} is "${topic}" but the worker has no Kafka client to reach it`,
      );
    }
    const log = new KafkaOffsetLog(dependencies.kafka, {
      topic,
      partitions: integer(worker, OFFSET_STORAGE_PARTITIONS, DEFAULT_OFFSET_TOPIC_PARTITIONS, -1),
      replicationFactor: integer(
        worker,
        OFFSET_STORAGE_REPLICATION_FACTOR,
        DEFAULT_OFFSET_TOPIC_REPLICATION_FACTOR,
        -1,
      ),
    });
    return new TopicOffsetStore({ log, flushDelayMs });
  }
  const path = text(worker, OFFSET_STORAGE_FILE);
  if (path !== null) return new FileOffsetStore({ path, flushDelayMs });
  throw new OffsetStoreConfigError(
    `No source offset store is configured: set ${OFFSET_STORAGE_FILE} (a local file, for one daemon) or ` +
      `${OFFSET_STORAGE_TOPIC} (a compacted Kafka topic in Kafka Connect's format)`,
  );
}

/** A non-blank string value, trimmed; null when absent or blank. */
function text(worker: Readonly<Record<string, unknown>>, key: string): string | null {
  const value = worker[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") {
    throw new OffsetStoreConfigError(`${key} must be a string, got ${JSON.stringify(value)}`);
  }
  return value.trim() === "" ? null : value.trim();
}

/** An integer value ≥ min (0 is refused where -1 means "broker default"); the default when absent or blank. */
function integer(
  worker: Readonly<Record<string, unknown>>,
  key: string,
  fallback: number,
  min: number,
): number {
  const value = worker[key];
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
    return fallback;
  }
  const n = typeof value === "number" ? value : Number(String(value).trim());
  const valid = Number.isSafeInteger(n) && n >= min && !(min === -1 && n === 0);
  if (!valid) {
    const range = min === -1 ? "a positive integer or -1 (broker default)" : `an integer ≥ ${min}`;
    throw new OffsetStoreConfigError(`${key} must be ${range}, got ${JSON.stringify(value)}`);
  }
  return n;
}
