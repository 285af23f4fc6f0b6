/**
 * Keeps a table's rows and its deletions in time order per key. The table's sweeps are bounded by the point up to
 * which deletions have been read and queued: a row re-created (or restored) after a deletion is emitted only once
 * the deletion's tombstone is ahead of it in the task's queue. The audit stream reports each sweep's high-water
 * mark when it starts and the sweep's end after its records were queued; until its first sweep ended, the table
 * waits.
 */
import type { HighWaterMark } from "../instance_time.ts";
import type { Cursor } from "../cursor.ts";
import type { StepObserver } from "../progress_tracker.ts";

export class DeleteHorizon implements StepObserver {
  #pending: HighWaterMark | null = null;
  #through: HighWaterMark | null = null;
  readonly #first = Promise.withResolvers<void>();

  /** @param onFailure told of the audit stream's failures (they hold the table back, so they are the table's). */
  constructor(private readonly onFailure: (error: Error) => void = () => {}) {}

  /** The audit stream's sweep bound: remembers where the sweep that starts now ends. */
  started(mark: HighWaterMark): Promise<HighWaterMark> {
    this.#pending = mark;
    return Promise.resolve(mark);
  }

  /** Called by the audit stream after each step's records were queued. */
  stepped(_emitted: number, _cursor: Cursor | null, sweepEnded: boolean): void {
    if (!sweepEnded || this.#pending === null) return;
    this.#through = this.#pending;
    this.#first.resolve();
  }

  /** The audit stream backs off on its own; the table waits at the last horizon meanwhile. */
  failed(error: Error): void {
    this.onFailure(error);
  }

  /** Deletions are known up to here (null before the first audit sweep ended). */
  get through(): HighWaterMark | null {
    return this.#through;
  }

  /** The table's sweep bound: its own high-water mark, but not past the deletions read so far. */
  async clamp(mark: HighWaterMark, signal: AbortSignal): Promise<HighWaterMark> {
    if (this.#through === null) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        this.#first.promise.then(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
    const through = this.#through!;
    return through.epochMs < mark.epochMs ? through : mark;
  }
}
