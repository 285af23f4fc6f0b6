/**
 * The in-memory view every store keeps: connector → canonical partition key → row.
 *
 * Partitions are matched canonically (see offset_key.ts), so a partition written by Java Connect with another
 * field order is updated, not duplicated, by ours. A row keeps the key text it was first stored under: later
 * writes of that partition reuse it byte for byte, so in a Kafka topic they land in the same partition as the
 * first write (the default partitioner hashes the key bytes) and compaction replaces it. Stored objects are
 * frozen copies: callers cannot change the table by mutating what they passed in or got back.
 */
import { canonicalOffsetKey, serializeOffsetKey } from "./offset_key.ts";
import type { SourceOffset, SourcePartition } from "../../connect/record.ts";
import type { SourceOffsetEntry } from "../../connect/task_api.ts";

/** One live row of the table. */
export interface OffsetRow {
  readonly connector: string;
  readonly partition: SourcePartition;
  readonly offset: SourceOffset;
  /** The key JSON this row is stored under: `["<connector>",{partition}]`, spelled as first written. */
  readonly key: string;
}

export class OffsetTable {
  readonly #byConnector = new Map<string, Map<string, OffsetRow>>();

  get(connector: string, partition: SourcePartition): SourceOffset | undefined {
    return this.#row(connector, partition)?.offset;
  }

  getAll(connector: string): SourceOffsetEntry[] {
    const rows = this.#byConnector.get(connector);
    if (!rows) return [];
    return [...rows.values()].map(({ partition, offset }) => ({ partition, offset }));
  }

  /**
   * Stores the offset, or deletes the partition's row when `offset` is null. `key` is the exact key text read
   * from stored data, when there is one; an existing row keeps its own key and partition object.
   */
  apply(connector: string, partition: SourcePartition, offset: SourceOffset | null, key?: string): void {
    const canonical = canonicalOffsetKey(connector, partition);
    let rows = this.#byConnector.get(connector);
    if (offset === null) {
      rows?.delete(canonical);
      if (rows?.size === 0) this.#byConnector.delete(connector);
      return;
    }
    if (!rows) this.#byConnector.set(connector, rows = new Map());
    const existing = rows.get(canonical);
    rows.set(canonical, {
      connector,
      partition: existing?.partition ?? frozenCopy(partition),
      offset: frozenCopy(offset),
      key: existing?.key ?? key ?? serializeOffsetKey(connector, partition),
    });
  }

  /** Every live row, grouped by connector. */
  *rows(): Iterable<OffsetRow> {
    for (const rows of this.#byConnector.values()) yield* rows.values();
  }

  get size(): number {
    let n = 0;
    for (const rows of this.#byConnector.values()) n += rows.size;
    return n;
  }

  #row(connector: string, partition: SourcePartition): OffsetRow | undefined {
    return this.#byConnector.get(connector)?.get(canonicalOffsetKey(connector, partition));
  }
}

function frozenCopy<T extends Readonly<Record<string, unknown>>>(map: T): T {
  const copy: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(map)) {
    Object.defineProperty(copy, field, { value, enumerable: true, writable: true, configurable: true });
  }
  return Object.freeze(copy) as T;
}
