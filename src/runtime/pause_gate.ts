/** A gate loops wait on while their task is paused; `stop` opens it for good so loops can finish. */
export class PauseGate {
  #paused = false;
  #waiters: (() => void)[] = [];

  get paused(): boolean {
    return this.#paused;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves at once when not paused, otherwise on resume. */
  wait(): Promise<void> {
    return this.#paused ? new Promise((resolve) => this.#waiters.push(resolve)) : Promise.resolve();
  }
}

/** Sleeps `ms`, ending early (without error) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Backoff for retriable task failures: doubles from 1 s up to `maxMs`, with jitter so tasks do not retry in step. */
export function retryBackoffMs(attempt: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, 1000 * 2 ** Math.min(attempt - 1, 16));
  return ceiling / 2 + Math.random() * ceiling / 2;
}
