/**
 * A node's API_INT semaphore (instance-limits.md §2): `threads` transactions run at once, up to `queue` more wait
 * in arrival order, and one more finds the queue full (the instance answers a bare 429). Another client's work
 * can hold some threads (`hold`), as every other integration and MID Server share the pool.
 */

/** How a wait for a thread ended. */
export type Entry = "run" | "timed_out" | "closed";

interface Waiter {
  resolve(entry: Entry): void;
  timer?: ReturnType<typeof setTimeout>;
}

export class Semaphore {
  readonly threads: number;
  readonly queueLimit: number;
  #running = 0;
  #held = 0;
  #queue: Waiter[] = [];

  constructor(threads: number, queueLimit: number) {
    if (!Number.isInteger(threads) || threads < 1) {
      throw new RangeError(`semaphore threads must be a positive integer, got ${threads}`);
    }
    if (!Number.isInteger(queueLimit) || queueLimit < 0) {
      throw new RangeError(`semaphore queue must be a non-negative integer, got ${queueLimit}`);
    }
    this.threads = threads;
    this.queueLimit = queueLimit;
  }

  get running(): number {
    return this.#running;
  }
  get queued(): number {
    return this.#queue.length;
  }
  get held(): number {
    return this.#held;
  }

  /**
   * Asks for a thread: "full" at once when the queue is full, else a promise of "run" (the caller holds a
   * thread until `leave`), "timed_out" (still queued after `timeoutMs`) or "closed" (the simulator stops).
   */
  enter(timeoutMs?: number): Promise<Entry> | "full" {
    if (this.#free() > 0 && this.#queue.length === 0) {
      this.#running++;
      return Promise.resolve("run");
    }
    if (this.#queue.length >= this.queueLimit) return "full";
    return new Promise<Entry>((resolve) => {
      const waiter: Waiter = { resolve };
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          this.#queue = this.#queue.filter((w) => w !== waiter);
          resolve("timed_out");
        }, Math.max(0, timeoutMs));
      }
      this.#queue.push(waiter);
    });
  }

  leave(): void {
    this.#running--;
    this.#dispatch();
  }

  /** Another client holds `n` threads from now on (they free up as its work ends: 0 gives them back). */
  hold(n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > this.threads) {
      throw new RangeError(`threads held by another client must be within 0..${this.threads}, got ${n}`);
    }
    this.#held = n;
    this.#dispatch();
  }

  /** Sends every waiter away ("closed"): nothing may hang once the simulator stops. */
  close(): void {
    for (const w of this.#queue.splice(0)) {
      clearTimeout(w.timer);
      w.resolve("closed");
    }
  }

  #free(): number {
    return this.threads - this.#held - this.#running;
  }

  #dispatch(): void {
    while (this.#free() > 0 && this.#queue.length > 0) {
      const next = this.#queue.shift()!;
      clearTimeout(next.timer);
      this.#running++;
      next.resolve("run");
    }
  }
}
