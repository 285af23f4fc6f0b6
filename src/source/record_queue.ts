/**
 * Hands records from the table pollers (one async loop per table) to `poll()`. A poller's `put` resolves when
 * `poll()` has taken the batch; each poller awaits its previous batch before putting the next, so it can fetch one
 * page ahead and no further (backpressure, bounded memory).
 */
import type { SourceRecord } from "../connect/record.ts";

interface QueuedBatch {
  readonly records: SourceRecord[];
  readonly taken: () => void;
}

export class RecordQueue {
  #batches: QueuedBatch[] = [];
  #wake: (() => void) | null = null;

  put(records: SourceRecord[]): Promise<void> {
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

  /** Takes every queued record, oldest batch first, and releases their pollers. */
  drain(): SourceRecord[] {
    const batches = this.#batches;
    this.#batches = [];
    const out: SourceRecord[] = batches.length === 1 ? batches[0].records : batches.flatMap((b) => b.records);
    for (const b of batches) b.taken();
    return out;
  }

  /** Releases every waiting poller without delivering (the task is stopping). */
  discard(): void {
    const batches = this.#batches;
    this.#batches = [];
    for (const b of batches) b.taken();
  }
}
