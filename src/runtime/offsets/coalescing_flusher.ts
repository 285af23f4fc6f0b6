/**
 * Turns many small changes into few writes, one at a time.
 *
 * A store calls `changed()` after every in-memory change; a background write starts `delayMs` later, covering
 * everything changed by then. `flush()` writes now and resolves when every change made before the call is
 * written. Writes never overlap: a flush that arrives during a write queues one more write, and every flush
 * arriving before that queued write starts shares it (so N concurrent flushes cost at most two writes).
 * A failed write leaves the changes pending: the caller of `flush()` gets the error, a background write is
 * retried with a growing delay, and any later flush retries too.
 */
import { backoffCeiling } from "../../common/delay.ts";

export interface CoalescingFlusherOptions {
  /** Delay between the first unwritten change and the background write that covers it. */
  readonly delayMs: number;
  /** Writes the current state (or the changes since the last successful write). Never called concurrently. */
  readonly write: () => Promise<void>;
  /** Told about a failed background write; the changes stay pending and are retried. */
  readonly onBackgroundError: (error: unknown) => void;
}

/** Longest wait between retries of a failing background write. */
const MAX_RETRY_DELAY_MS = 30_000;

export class CoalescingFlusher {
  readonly #options: CoalescingFlusherOptions;
  /** Counts changes; a write covers every change counted when it starts. */
  #changes = 0;
  #written = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Background writes failed in a row: the retry delay doubles with each. */
  #failedWrites = 0;
  /** The latest write in the chain, settled either way: the next write starts after it. */
  #tail: Promise<void> = Promise.resolve();
  /** A write queued but not started yet: joining it covers every change made so far. */
  #queued: Promise<void> | undefined;
  #stopped = false;

  constructor(options: CoalescingFlusherOptions) {
    this.#options = options;
  }

  /** Whether some change is not written yet. */
  get dirty(): boolean {
    return this.#changes !== this.#written;
  }

  changed(): void {
    this.#changes++;
    this.#schedule(this.#options.delayMs);
  }

  flush(): Promise<void> {
    this.#cancelTimer();
    if (this.#queued) return this.#queued;
    const run = this.#tail.then(() => {
      this.#queued = undefined;
      return this.#writeIfDirty();
    });
    this.#queued = run;
    this.#tail = run.catch(() => {});
    return run;
  }

  /** Writes what is pending, then stops scheduling background writes. Rejects if that last write fails. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.flush();
  }

  async #writeIfDirty(): Promise<void> {
    const target = this.#changes;
    if (target === this.#written) return;
    await this.#options.write();
    this.#written = target;
    this.#failedWrites = 0;
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch((error) => {
        this.#options.onBackgroundError(error);
        this.#failedWrites++;
        // The first retry waits twice the delay (at least 1 ms).
        const firstRetryMs = Math.max(this.#options.delayMs * 2, 1);
        if (this.dirty) this.#schedule(backoffCeiling(this.#failedWrites, firstRetryMs, MAX_RETRY_DELAY_MS));
      });
    }, delayMs);
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
