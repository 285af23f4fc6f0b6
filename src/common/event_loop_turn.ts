/**
 * A loop that runs on promise continuations alone (microtasks: a resolved poll, a queue that already holds the
 * next batch) never lets the event loop read a socket. The source driver is such a loop when a page's rows are
 * at hand: it converted up to 16 MiB of records in one go (140–210 ms in bench/source_e2e.ts), and responses
 * Kafka had sent meanwhile (the exactly-once commit's round trips: FindCoordinator, AddPartitionsToTxn, EndTxn)
 * waited for it. `EventLoopTurns.take()` gives the event loop a turn once the loop ran `everyMs` without one.
 */

/** How long a loop runs on microtasks before it gives the event loop a turn. */
export const EVENT_LOOP_TURN_EVERY_MS = 10;

export class EventLoopTurns {
  #since = performance.now();

  constructor(private readonly everyMs = EVENT_LOOP_TURN_EVERY_MS) {}

  /** Resolves at once while the loop has run less than `everyMs`, else after a macrotask turn. */
  take(): Promise<void> | undefined {
    if (performance.now() - this.#since < this.everyMs) return undefined;
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        this.#since = performance.now();
        resolve();
      }, 0)
    );
  }
}
