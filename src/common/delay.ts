/**
 * Delays and backoff, for every retry loop in the daemon. Two ways to sleep, named by what an abort does:
 * a stopping loop just ends its wait (`sleepEndingOnAbort`), a cancelled operation fails with the abort reason
 * (`sleepRejectingOnAbort`). Backoff is exponential: the n-th retry's ceiling starts at an initial delay, doubles
 * per retry and is capped (`backoffCeiling`); jitter spreads the retries of many clients hit by the same failure
 * (`fullJitter` anywhere below the ceiling, `equalJitter` in its upper half). A bounded wait for something else
 * (`settlesWithin`) tells whether it came in time.
 */

/** Waits `ms`, resolving early (not rejecting) when `signal` aborts: stopping must not wait out a delay. */
export function sleepEndingOnAbort(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Waits `ms`, rejecting with the abort reason when `signal` aborts: the operation waiting is cancelled. */
export function sleepRejectingOnAbort(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits for `promise` at most `ms`: true when it resolved in time, false when the time ran out first (it goes on
 * unobserved); rejects when it rejected in time. The timer never outlives the wait.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A sleep hook (tests replace it so no time passes). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The ceiling before retry number `retry` (1 for the first retry): `initialMs` doubled per retry, capped at `maxMs`. */
export function backoffCeiling(retry: number, initialMs: number, maxMs: number): number {
  // 2 ** 1024 is Infinity, which Math.min handles; no overflow trick needed.
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, retry - 1));
}

/** A full-jitter wait below `ceiling`; `random` returns [0, 1) like Math.random. */
export function fullJitter(ceiling: number, random: () => number = Math.random): number {
  return Math.floor(random() * ceiling);
}

/** An equal-jitter wait in [ceiling / 2, ceiling): never much shorter than the ceiling, never in step. */
function equalJitter(ceiling: number, random: () => number = Math.random): number {
  return ceiling / 2 + random() * ceiling / 2;
}

/** Backoff for retriable task failures: 1 s doubling up to `maxMs`, equal jitter so tasks do not retry in step. */
export function retryBackoffMs(attempt: number, maxMs: number): number {
  return equalJitter(backoffCeiling(attempt, 1000, maxMs));
}
