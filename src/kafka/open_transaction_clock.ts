/**
 * How long the open transaction has been open, on the steady clock, and whether this process kept running all
 * that time. Both tell the two causes of an INVALID_PRODUCER_EPOCH answer apart, which kafkajs's request versions
 * cannot:
 * - the coordinator aborted the transaction on its `transaction.timeout.ms`: Kafka held it (a paused or cut-off
 *   broker) while this process kept running and waiting;
 * - a newer owner took the transactional id: the case fencing exists for, typically this process frozen (a
 *   paused VM, SIGSTOP) long enough to lose its task, then resuming as a zombie.
 * A transaction open past the timeout in a process that never stalled for STALL_MS is the first.
 */

/** How often the clock checks that the process runs. */
const TICK_MS = 1_000;
/**
 * A stall this long while a transaction is open may have cost the process its task (a worker group's session
 * timeout is of this order): a refusal after it is taken as fencing.
 */
const STALL_MS = 10_000;

export class OpenTransactionClock {
  readonly #tickMs: number;
  readonly #stallMs: number;
  #openedAt: number | null = null;
  #lastTick = 0;
  #longestGap = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** `tickMs` and `stallMs` are for tests; the defaults are TICK_MS and STALL_MS. */
  constructor({ tickMs = TICK_MS, stallMs = STALL_MS } = {}) {
    this.#tickMs = tickMs;
    this.#stallMs = stallMs;
  }

  /** A transaction opened now. */
  start(): void {
    this.stop();
    const now = performance.now();
    this.#openedAt = now;
    this.#lastTick = now;
    this.#longestGap = 0;
    this.#timer = setInterval(() => {
      const at = performance.now();
      this.#longestGap = Math.max(this.#longestGap, at - this.#lastTick);
      this.#lastTick = at;
    }, this.#tickMs);
    // Only measures: never keeps a stopping task alive.
    Deno.unrefTimer(this.#timer);
  }

  /** The transaction ended. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#openedAt = null;
  }

  /** Milliseconds the transaction has been open; 0 when none is. */
  openMs(): number {
    return this.#openedAt === null ? 0 : performance.now() - this.#openedAt;
  }

  /**
   * Whether the transaction has been open at least `timeoutMs` while this process ran throughout (no stall of
   * STALL_MS, counting the one up to now: a frozen process may hear the refusal before its own timer).
   */
  openPastWhileRunning(timeoutMs: number): boolean {
    if (this.#openedAt === null) return false;
    const stalled = Math.max(this.#longestGap, performance.now() - this.#lastTick) >= this.#stallMs;
    return !stalled && this.openMs() >= timeoutMs;
  }
}
