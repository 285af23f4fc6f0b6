/**
 * Exponential backoff with full jitter: the n-th retry waits a uniformly random time in [0, ceiling), where the
 * ceiling starts at `svc.retry.initial.backoff.ms`, doubles per retry and is capped at `svc.retry.max.backoff.ms`.
 * Full jitter spreads the retries of many clients hit by the same failure.
 */

/** The ceiling before retry number `retry` (1 for the first retry). */
export function backoffCeiling(retry: number, initialMs: number, maxMs: number): number {
  // 2 ** 1024 is Infinity, which Math.min handles; no overflow trick needed.
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, retry - 1));
}

/** A full-jitter wait below `ceiling`; `random` returns [0, 1) like Math.random. */
export function fullJitter(ceiling: number, random: () => number = Math.random): number {
  return Math.floor(random() * ceiling);
}
