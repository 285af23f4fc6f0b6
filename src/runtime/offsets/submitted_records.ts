/**
 * In-order offset commits despite out-of-order acks (Kafka Connect's SubmittedRecords).
 *
 * The producer acknowledges records in any order across Kafka partitions, but a source offset means "everything
 * up to here is in Kafka". So per source partition, records are queued in submission order, and the committable
 * offset is that of the latest record whose predecessors are all acked (or dropped). Committing anything later
 * would skip a record still in flight if the process died now.
 *
 * The source driver (runtime/source_task/source_driver.ts) calls `submit()` for each record before handing it to
 * the producer, `ack()` from the producer's acknowledgement, `drop()` for a record it gives up on
 * (errors.tolerance=all), and periodically `committableOffsets()` to get what the offset store (or the
 * transaction) may be told. Counts feed metrics and back-pressure (`awaitInFlightAtMost`).
 */
import { canonicalJson } from "./offset_key.ts";
import type { SourceOffset, SourcePartition } from "../../connect/record.ts";
import type { SourceOffsetEntry } from "../../connect/task_api.ts";

/** The handle `submit()` returns; pass it to `ack()` or `drop()`. */
export interface SubmittedRecord {
  readonly partition: SourcePartition;
  readonly offset: SourceOffset;
}

/** What `committableOffsets()` found (the figures of Connect's CommittableOffsets). */
export interface CommittableOffsets {
  /** Per source partition that advanced: the offset of its latest record with every predecessor acked. */
  readonly offsets: SourceOffsetEntry[];
  /** Records this call removed from the queues (acked, or dropped, with all predecessors done). */
  readonly committableCount: number;
  /** Records still queued after this call: in flight, or acked behind one in flight. */
  readonly uncommittableCount: number;
  /** Source partitions that still have queued records. */
  readonly partitionCount: number;
  /** The longest queue left, and its partition (null when nothing is queued): a stuck record shows up here. */
  readonly largestQueueSize: number;
  readonly largestQueuePartition: SourcePartition | null;
}

type RecordState = "in-flight" | "acked" | "dropped";

class TrackedRecord implements SubmittedRecord {
  state: RecordState = "in-flight";
  constructor(
    readonly partition: SourcePartition,
    readonly offset: SourceOffset,
    readonly queue: PartitionQueue,
  ) {}
}

/** A FIFO with O(1) removal from the head (Array.shift is O(n)). */
class PartitionQueue {
  /** Entries before `#head` are cleared (undefined) so the records they held can be collected. */
  #items: (TrackedRecord | undefined)[] = [];
  #head = 0;
  constructor(readonly key: string, readonly partition: SourcePartition) {}

  push(record: TrackedRecord): void {
    this.#items.push(record);
  }

  peek(): TrackedRecord | undefined {
    return this.#items[this.#head];
  }

  shift(): void {
    this.#items[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  get size(): number {
    return this.#items.length - this.#head;
  }
}

interface Waiter {
  readonly limit: number;
  readonly resolve: () => void;
}

export class SubmittedRecords {
  readonly #queues = new Map<string, PartitionQueue>();
  /** Canonical keys of partition objects seen: a task shares one partition object among all its records. */
  readonly #keys = new WeakMap<SourcePartition, string>();
  #queued = 0;
  #inFlight = 0;
  #waiters: Waiter[] = [];

  /** Queues a record for its source partition, before it is handed to the producer. */
  submit(partition: SourcePartition, offset: SourceOffset): SubmittedRecord {
    let key = this.#keys.get(partition);
    if (key === undefined) this.#keys.set(partition, key = canonicalJson(partition));
    let queue = this.#queues.get(key);
    if (!queue) this.#queues.set(key, queue = new PartitionQueue(key, partition));
    const record = new TrackedRecord(partition, offset, queue);
    queue.push(record);
    this.#queued++;
    this.#inFlight++;
    return record;
  }

  /** Marks the record as written to Kafka. Idempotent; a record already committed or dropped is ignored. */
  ack(record: SubmittedRecord): void {
    this.#settle(record, "acked");
  }

  /**
   * Gives up on the record: it no longer holds back later records of its partition, and its own offset is never
   * committed (a later record's may be). Idempotent; ignored for an acked record.
   */
  drop(record: SubmittedRecord): void {
    this.#settle(record, "dropped");
  }

  /** Removes every record that can be committed and returns, per partition, the offset to commit. */
  committableOffsets(): CommittableOffsets {
    const offsets: SourceOffsetEntry[] = [];
    let committableCount = 0;
    let largestQueueSize = 0;
    let largestQueuePartition: SourcePartition | null = null;
    for (const [key, queue] of this.#queues) {
      let latest: TrackedRecord | undefined;
      for (let head = queue.peek(); head && head.state !== "in-flight"; head = queue.peek()) {
        if (head.state === "acked") latest = head;
        queue.shift();
        committableCount++;
      }
      if (latest) offsets.push({ partition: queue.partition, offset: latest.offset });
      if (queue.size === 0) this.#queues.delete(key);
      else if (queue.size > largestQueueSize) {
        largestQueueSize = queue.size;
        largestQueuePartition = queue.partition;
      }
    }
    this.#queued -= committableCount;
    return {
      offsets,
      committableCount,
      uncommittableCount: this.#queued,
      partitionCount: this.#queues.size,
      largestQueueSize,
      largestQueuePartition,
    };
  }

  /** Records submitted and not yet removed by `committableOffsets()`. */
  get pendingCount(): number {
    return this.#queued;
  }

  /** Records submitted and neither acked nor dropped: what the producer still holds (for back-pressure). */
  get inFlightCount(): number {
    return this.#inFlight;
  }

  /**
   * Resolves once at most `limit` records are in flight: 0 waits for every ack (shutdown); a positive limit
   * pauses a poller until the producer catches up. Rejects with the signal's reason when it aborts first.
   */
  awaitInFlightAtMost(limit: number, signal?: AbortSignal): Promise<void> {
    if (this.#inFlight <= limit) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        limit,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #settle(record: SubmittedRecord, state: "acked" | "dropped"): void {
    if (!(record instanceof TrackedRecord) || this.#queues.get(record.queue.key) !== record.queue) return;
    if (record.state !== "in-flight") return;
    record.state = state;
    this.#inFlight--;
    if (this.#waiters.length > 0) this.#wakeWaiters();
  }

  #wakeWaiters(): void {
    const ready = this.#waiters.filter((w) => this.#inFlight <= w.limit);
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => this.#inFlight > w.limit);
    for (const waiter of ready) waiter.resolve();
  }
}
