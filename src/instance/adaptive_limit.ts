/**
 * The throttler's adaptive limit (`svc.http.adaptive.throttling`; the permits are permit_pool.ts's). Loss-based
 * adaptive concurrency on the shared host state: an HTTP 429 halves the in-flight limit (never
 * below one), and every RECOVERY_SUCCESSES successful responses give one permit back (never above the
 * configured maximum). Every 429 counts, as the spec says: a burst of throttled responses drives the limit
 * to one quickly, and recovery is deliberately slow.
 *
 * All updates are compare-and-swap loops on the SharedArrayBuffer, so concurrent workers never lose one.
 */
import { CONTROL, COUNTER, type SharedHostViews, wakeWaiters } from "./shared_host_state.ts";

export const RECOVERY_SUCCESSES = 50;

/** Halves the limit after a 429. Returns the new limit. */
export function halveLimit({ control, counters }: SharedHostViews): number {
  for (;;) {
    const current = Atomics.load(control, CONTROL.LIMIT);
    const next = Math.max(1, Math.floor(current / 2));
    if (Atomics.compareExchange(control, CONTROL.LIMIT, current, next) !== current) continue;
    Atomics.store(control, CONTROL.SUCCESSES, 0);
    if (next < current) {
      Atomics.add(counters, COUNTER.LIMIT_DECREASES, 1);
      lowerWatermark(control, next);
    }
    return next;
  }
}

/** Counts a successful response; every RECOVERY_SUCCESSES of them raise the limit by one. Returns the limit. */
export function recordSuccess({ control, counters }: SharedHostViews): number {
  if (Atomics.load(control, CONTROL.LIMIT) >= Atomics.load(control, CONTROL.MAX)) {
    return Atomics.load(control, CONTROL.LIMIT);
  }
  const seen = Atomics.add(control, CONTROL.SUCCESSES, 1) + 1;
  // Only the caller whose CAS consumes a full batch of successes raises the limit.
  if (seen < RECOVERY_SUCCESSES) return Atomics.load(control, CONTROL.LIMIT);
  if (Atomics.compareExchange(control, CONTROL.SUCCESSES, seen, seen - RECOVERY_SUCCESSES) !== seen) {
    return Atomics.load(control, CONTROL.LIMIT);
  }
  for (;;) {
    const current = Atomics.load(control, CONTROL.LIMIT);
    const max = Atomics.load(control, CONTROL.MAX);
    if (current >= max) return current;
    if (Atomics.compareExchange(control, CONTROL.LIMIT, current, current + 1) === current) {
      Atomics.add(counters, COUNTER.LIMIT_INCREASES, 1);
      wakeWaiters(control);
      return current + 1;
    }
  }
}

/** Lowers the maximum (a connector configured with a smaller `svc.http.max.concurrent.requests`). */
export function lowerMax({ control }: SharedHostViews, max: number): void {
  for (;;) {
    const current = Atomics.load(control, CONTROL.MAX);
    if (max >= current) return;
    if (Atomics.compareExchange(control, CONTROL.MAX, current, max) === current) break;
  }
  for (;;) {
    const limit = Atomics.load(control, CONTROL.LIMIT);
    if (limit <= max) break;
    if (Atomics.compareExchange(control, CONTROL.LIMIT, limit, max) === limit) break;
  }
  lowerWatermark(control, Atomics.load(control, CONTROL.LIMIT));
}

function lowerWatermark(control: Int32Array, value: number): void {
  for (;;) {
    const lowest = Atomics.load(control, CONTROL.LOWEST_LIMIT);
    if (value >= lowest || Atomics.compareExchange(control, CONTROL.LOWEST_LIMIT, lowest, value) === lowest) {
      return;
    }
  }
}
