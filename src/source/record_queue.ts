/**
 * Hands records from the table pollers (one async loop per table) to `poll()`. A poller's `put` resolves when
 * `poll()` has taken the batch; each poller awaits its previous batch before putting the next (a batch is a slice
 * of a page, about 100 KB of rows), so it builds one batch ahead and no further (backpressure, bounded memory).
 *
 * `drain` hands over the oldest batches up to `maxRecordsPerDrain` records (always at least one batch): the pollers
 * whose batches stay queued wait instead of building their next one, so with many tables the task holds about
 * one page body and one batch per table plus what the driver is sending.
 */
import type { SourceRecord } from "../connect/record.ts";

interface QueuedBatch {
  readonly records: SourceRecord[];
  readonly taken: () => void;
}

export interface RecordQueueOptions {
  /** Most records one `drain` takes, unless its oldest batch alone is more. Default 5000 (one default page). */
  readonly maxRecordsPerDrain?: number;
}

export class RecordQueue {
  #batches: QueuedBatch[] = [];
  readonly #maxRecords: number;

  constructor(options: RecordQueueOptions = {}) {
    this.#maxRecords = options.maxRecordsPerDrain ?? 5000;
  }

  #wake: (() => void) | null = null;
  /** `discard` was called: the task is stopping and nothing will be taken any more. */
  #discarded = false;

  /**
   * Queues a batch; resolves when `poll()` took it, or at once after `discard` (records queued then are
   * dropped: a poller that goes on handling a page read before the stop must not wait for a taker).
   */
  put(records: SourceRecord[]): Promise<void> {
    if (this.#discarded) return Promise.resolve();
    return new Promise((taken) => {
      this.#batches.push({ records, taken });
      this.notify();
    });
  }

  /** Wakes a waiting `waitForRecords` (also used to report a failure). */
  notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  get isEmpty(): boolean {
    return this.#batches.length === 0;
  }

  /** Resolves when a batch is queued, `notify` is called, `maxWaitMs` passes, or `signal` aborts. */
  waitForRecords(maxWaitMs: number, signal: AbortSignal): Promise<void> {
    if (!this.isEmpty || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        if (this.#wake === done) this.#wake = null;
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      signal.addEventListener("abort", done, { once: true });
      this.#wake = done;
    });
  }

  /** Takes the oldest batches, up to `maxRecordsPerDrain` records, and releases their pollers. */
  drain(): SourceRecord[] {
    let take = 0;
    let records = 0;
    while (take < this.#batches.length) {
      const size = this.#batches[take].records.length;
      if (take > 0 && records + size > this.#maxRecords) break;
      records += size;
      take++;
    }
    const batches = this.#batches.splice(0, take);
    const out: SourceRecord[] = batches.length === 1 ? batches[0].records : batches.flatMap((b) => b.records);
    for (const b of batches) b.taken();
    return out;
  }

  /**
   * Releases every waiting poller without delivering, and every later `put` at once (the task is stopping).
   * Pages read before the stop may still be handled after it (a parallel backfill's ranges queue theirs one
   * behind the other): each waits for the batch put before it, which nobody would take.
   */
  discard(): void {
    this.#discarded = true;
    const batches = this.#batches;
    this.#batches = [];
    for (const b of batches) b.taken();
  }
}
