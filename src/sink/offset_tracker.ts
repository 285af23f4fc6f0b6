/**
 * Which consumed records are fully handled (written and reported, or handled as a record error), so that
 * `preCommit` never lets the consumer group's committed offset pass a record that is not.
 *
 * Coordinates are where a record was consumed (its original topic, partition and offset), since those are the
 * offsets the group commits, whatever transforms did to the topic.
 *
 * When `put` fails retriably the driver delivers the same records again. The tracker remembers which of them
 * were already handled (skipped on redelivery) and which were written but not yet reported (only reported
 * again), so a redelivery repeats no write that succeeded: no duplicate creates.
 */
import type { SinkRecord } from "../connect/record.ts";
import type { TopicPartitionOffset } from "../connect/task_api.ts";

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** Where a record was consumed. */
export function sourceOf(record: SinkRecord): TopicPartition & { offset: number } {
  return {
    topic: record.originalTopic,
    partition: record.originalKafkaPartition,
    offset: record.originalKafkaOffset,
  };
}

/** A record's state in its partition. */
export type RecordProgress<W> =
  | { state: "new" }
  | { state: "handled" }
  /** Written earlier; only what followed the write (reporting) is left. */
  | { state: "written"; written: W };

interface PartitionState<W> {
  /** Offsets taken but not fully handled; the value is set once the write succeeded. */
  pending: Map<number, W | null>;
  /** Offsets handled while a lower one is still pending: a redelivery must skip them. */
  handled: Set<number>;
}

function partitionKey(tp: TopicPartition): string {
  return `${tp.partition}\u0000${tp.topic}`;
}

/** `W` is what the task keeps about a written record until it is reported. */
export class OffsetTracker<W> {
  readonly #partitions = new Map<string, PartitionState<W>>();
  /** The first unhandled offset of partitions given up by `close`, for the driver's final commit. */
  readonly #closingFloors = new Map<string, number>();

  /** Takes a record: new ones become pending; the answer tells what is left to do for it. */
  take(record: SinkRecord): RecordProgress<W> {
    const source = sourceOf(record);
    const key = partitionKey(source);
    this.#closingFloors.delete(key);
    let state = this.#partitions.get(key);
    if (!state) {
      state = { pending: new Map(), handled: new Set() };
      this.#partitions.set(key, state);
    }
    if (state.handled.has(source.offset)) return { state: "handled" };
    const written = state.pending.get(source.offset);
    if (written !== undefined && written !== null) return { state: "written", written };
    state.pending.set(source.offset, null);
    return { state: "new" };
  }

  /** The write succeeded; the record stays pending until `handled`. */
  written(record: SinkRecord, written: W): void {
    const source = sourceOf(record);
    const state = this.#partitions.get(partitionKey(source));
    if (state?.pending.has(source.offset)) state.pending.set(source.offset, written);
  }

  /** The record needs nothing more: its offset may be committed once every lower one is handled too. */
  handled(record: SinkRecord): void {
    const source = sourceOf(record);
    const key = partitionKey(source);
    const state = this.#partitions.get(key);
    if (!state || !state.pending.delete(source.offset)) return;
    if (state.pending.size === 0) {
      // Nothing below is pending any more, so no redelivery can contain a handled record worth skipping.
      state.handled.clear();
    } else {
      state.handled.add(source.offset);
    }
  }

  /** The offsets safe to commit: for each consumed partition, its first pending offset if any, else `consumed`. */
  safeOffsets(consumed: readonly TopicPartitionOffset[]): TopicPartitionOffset[] {
    return consumed.map((c) => {
      const key = partitionKey(c);
      const floor = this.#firstPending(key) ?? this.#closingFloors.get(key);
      this.#closingFloors.delete(key);
      return {
        topic: c.topic,
        partition: c.partition,
        offset: floor === undefined ? c.offset : Math.min(floor, c.offset),
      };
    });
  }

  /**
   * The partitions are being revoked: their state is dropped, so that a later assignment starts afresh from the
   * committed offset, but their first pending offset is kept for the driver's final commit.
   */
  close(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) {
      const key = partitionKey(tp);
      const floor = this.#firstPending(key);
      if (floor !== undefined) this.#closingFloors.set(key, floor);
      this.#partitions.delete(key);
    }
  }

  /** Offsets taken and not yet handled, over all partitions. */
  get pendingCount(): number {
    let n = 0;
    for (const state of this.#partitions.values()) n += state.pending.size;
    return n;
  }

  #firstPending(key: string): number | undefined {
    const state = this.#partitions.get(key);
    if (!state || state.pending.size === 0) return undefined;
    let min = Infinity;
    for (const offset of state.pending.keys()) if (offset < min) min = offset;
    return min;
  }
}
