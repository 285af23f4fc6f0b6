/**
 * Source offsets: the shapes and the store contract shared by every backend.
 *
 * A source partition and a source offset are Kafka Connect's `Map<String, ?>` of primitive values, e.g.
 * `{"table":"incident"}` → `{"sys_updated_on":"2024-10-01 12:00:00","sys_id":"46d4…"}`. They are stored under
 * Connect's own key, `["<connector>",{partition}]`, so the data can move between our file, our topic and a Java
 * Connect cluster's `offset.storage.topic` as they are (see docs/offsets.md). The partition and offset types are
 * the connectors' own (src/connect/record.ts), and so is the stored entry (`SourceOffsetEntry`,
 * src/connect/task_api.ts); these are the change and the store.
 */

import type { SourceOffset, SourcePartition } from "../../connect/record.ts";
import type { SourceOffsetEntry } from "../../connect/task_api.ts";

/** One change: a new offset, or `null` to delete the partition's offset (a tombstone; KIP-875 reset/alter). */
export interface OffsetUpdate {
  readonly partition: SourcePartition;
  readonly offset: SourceOffset | null;
}

/**
 * Where source offsets live. Every backend loads everything in `start()` and answers reads from memory.
 *
 * Reads see every `set()` at once (read-your-writes); durability comes with `flush()`. Backends also write
 * on their own shortly after a `set()` (coalesced), so a caller that never flushes still loses at most a
 * short window on a crash; a caller that needs a guarantee (shutdown, KIP-875 alter/reset) awaits `flush()`.
 */
export interface OffsetStore {
  /** Loads every stored offset. Must resolve before any other call. Rejects when the stored data is unusable. */
  start(): Promise<void>;
  /** The offset stored for the connector's partition; `undefined` when there is none. */
  get(connector: string, partition: SourcePartition): SourceOffset | undefined;
  /** Every offset stored for the connector, in no particular order. */
  getAll(connector: string): SourceOffsetEntry[];
  /**
   * Records changes for the connector. Validates every entry first and applies none when one is invalid
   * (throws `InvalidOffsetError`, naming the bad field).
   */
  set(connector: string, entries: readonly OffsetUpdate[]): void;
  /**
   * Takes changes that are durable already (an exactly-once task committed them in its own transaction): reads
   * see them, nothing is written again. Only the topic store has it (exactly-once needs offset.storage.topic).
   */
  applyCommitted?(connector: string, entries: readonly OffsetUpdate[]): void;
  /** Resolves once every change `set()` before this call is durable; rejects when writing failed. */
  flush(): Promise<void>;
  /** Flushes, then releases resources. The store cannot be used afterwards. */
  close(): Promise<void>;
}
