/**
 * Runs writes with two guarantees: jobs with the same ordering key run one after another in submission order
 * (records of one row keep their offset order), and at most `maxInFlight` jobs run at once (different keys run
 * in parallel within the instance's permits).
 *
 * A job first waits for its key's predecessor and only then for a slot, so a waiting job never holds a slot and
 * the two waits cannot deadlock.
 */
export class KeyScheduler {
  readonly #maxInFlight: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];
  /** The last job submitted per key; a new job of the key starts after it settles. */
  readonly #tails = new Map<string, Promise<unknown>>();

  constructor(maxInFlight: number) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError(`maxInFlight must be ≥ 1`);
    this.#maxInFlight = maxInFlight;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running;
  }

  /** Runs `job` after the previous job of `key` (if any) has settled and a slot is free. */
  run<T>(key: string | null, job: () => Promise<T>): Promise<T> {
    const previous = key === null ? undefined : this.#tails.get(key);
    const result = (async () => {
      if (previous) await previous.catch(() => {});
      await this.#acquire();
      try {
        return await job();
      } finally {
        this.#release();
      }
    })();
    if (key !== null) {
      const tail = result.catch(() => {});
      this.#tails.set(key, tail);
      // Forget the key once its last job settled, so the map holds only keys with work pending.
      void tail.then(() => {
        if (this.#tails.get(key) === tail) this.#tails.delete(key);
      });
    }
    return result;
  }

  /** Keys with a job pending (for tests and metrics). */
  get pendingKeys(): number {
    return this.#tails.size;
  }

  #acquire(): Promise<void> {
    if (this.#running < this.#maxInFlight) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next waiter, so `running` never dips and lets a newcomer jump the queue.
    if (next) next();
    else this.#running--;
  }
}
