/**
 * The throttler's adaptive limit (`svc.http.adaptive.throttling`; the permits are permit_pool.ts's), on the
 * shared host state so every task thread's requests steer one limit. Two signals:
 *
 * - The instance's own queue (a delay-based rule, after TCP Vegas and Netflix's Gradient limit): responses
 *   carry `Server-Timing: sem_wait;dur=N` (server_timing.ts), the time each request queued for an API_INT
 *   thread. Over a window of about `limit` responses, Little's law gives how many of our requests were
 *   waiting for a thread on average: `queued = limit × Σ sem_wait / Σ round trip`. Below GROW_BELOW_QUEUED
 *   (waits near zero) the threads could take more and the limit grows by one, if the window used every permit;
 *   above SHRINK_ABOVE_QUEUED the limit drops by the excess (keeping one queued, at most halving per window);
 *   in between it holds. So the limit settles where the free threads are busy with about one request waiting,
 *   and follows another client taking or leaving threads.
 * - Loss: an HTTP 429 (the semaphore queue was full, or a rate-limit rule; with or without `Retry-After` or a
 *   body) halves the limit, never below one; every 429 counts. Without Server-Timing (a proxy strips it, an
 *   older instance), every RECOVERY_SUCCESSES successful responses give one permit back, never above the max.
 *
 * All updates are compare-and-swap loops on the SharedArrayBuffer, so concurrent task threads never lose one.
 */
import { CONTROL, COUNTER, type SharedHostViews, wakeWaiters } from "./shared_host_state.ts";

export const RECOVERY_SUCCESSES = 50;
/** Fewer of our requests waiting for a thread than this (on average): the instance has threads to spare. */
export const GROW_BELOW_QUEUED = 0.5;
/** More than this waiting: the limit is past the free threads and only lengthens the queue. */
export const SHRINK_ABOVE_QUEUED = 2;
/** Fewest samples a window decides on, so that one odd response at a small limit does not steer it. */
export const MIN_WINDOW = 4;

/** One response's load signal. */
export interface LoadSample {
  /** Server-Timing `sem_wait`, in milliseconds. */
  semWaitMs: number;
  /** Request sent to response headers, in milliseconds. */
  rttMs: number;
}

/** Halves the limit after a 429. Returns the new limit. */
export function halveLimit(views: SharedHostViews): number {
  const { control } = views;
  const next = setLimit(views, (current) => Math.max(1, Math.floor(current / 2)));
  Atomics.store(control, CONTROL.SUCCESSES, 0);
  resetWindow(control);
  return next;
}

/**
 * Counts a successful response without a load sample; every RECOVERY_SUCCESSES of them raise the limit by one.
 * Returns the limit.
 */
export function recordSuccess(views: SharedHostViews): number {
  const { control } = views;
  if (Atomics.load(control, CONTROL.LIMIT) >= Atomics.load(control, CONTROL.MAX)) {
    return Atomics.load(control, CONTROL.LIMIT);
  }
  const seen = Atomics.add(control, CONTROL.SUCCESSES, 1) + 1;
  // Only the caller whose CAS consumes a full batch of successes raises the limit.
  if (seen < RECOVERY_SUCCESSES) return Atomics.load(control, CONTROL.LIMIT);
  if (Atomics.compareExchange(control, CONTROL.SUCCESSES, seen, seen - RECOVERY_SUCCESSES) !== seen) {
    return Atomics.load(control, CONTROL.LIMIT);
  }
  return setLimit(views, (current) => current + 1);
}

/**
 * Adds a response's load sample to the window; the caller that completes a window applies the delay rule.
 * Returns the limit.
 */
export function recordLoadSample(views: SharedHostViews, sample: LoadSample): number {
  const { control } = views;
  Atomics.add(control, CONTROL.WINDOW_SEM_WAIT_MS, clampMs(sample.semWaitMs));
  Atomics.add(control, CONTROL.WINDOW_RTT_MS, clampMs(Math.max(sample.rttMs, sample.semWaitMs)));
  const seen = Atomics.add(control, CONTROL.WINDOW_SAMPLES, 1) + 1;
  const limit = Atomics.load(control, CONTROL.LIMIT);
  if (seen < Math.max(MIN_WINDOW, limit)) return limit;
  // One caller closes the window; samples added meanwhile count towards the next one.
  if (Atomics.compareExchange(control, CONTROL.WINDOW_SAMPLES, seen, 0) !== seen) return limit;
  const waitMs = Atomics.exchange(control, CONTROL.WINDOW_SEM_WAIT_MS, 0);
  const rttMs = Atomics.exchange(control, CONTROL.WINDOW_RTT_MS, 0);
  const peak = Atomics.exchange(
    control,
    CONTROL.WINDOW_PEAK_IN_FLIGHT,
    Atomics.load(control, CONTROL.IN_FLIGHT),
  );
  return setLimit(views, (current) => nextLimit(current, queuedEstimate(current, waitMs, rttMs), peak));
}

/** Our requests waiting for a thread on average over a window (Little's law). */
export function queuedEstimate(limit: number, semWaitMs: number, rttMs: number): number {
  return rttMs <= 0 ? 0 : (limit * semWaitMs) / rttMs;
}

/** The delay rule: the limit after a window with `queued` requests waiting and at most `peak` in flight. */
export function nextLimit(limit: number, queued: number, peak: number): number {
  if (queued > SHRINK_ABOVE_QUEUED) {
    return Math.max(1, Math.ceil(limit / 2), Math.round(limit - queued + 1));
  }
  // Waits near zero say nothing about more permits while the ones there are were not all used.
  if (queued < GROW_BELOW_QUEUED && peak >= limit) return limit + 1;
  return limit;
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

/** Sets the limit to `next(current)` within 1..MAX, counting and announcing a change. Returns the new limit. */
function setLimit({ control, counters }: SharedHostViews, next: (current: number) => number): number {
  for (;;) {
    const current = Atomics.load(control, CONTROL.LIMIT);
    const value = Math.min(Atomics.load(control, CONTROL.MAX), Math.max(1, next(current)));
    if (value === current) return current;
    if (Atomics.compareExchange(control, CONTROL.LIMIT, current, value) !== current) continue;
    if (value < current) {
      Atomics.add(counters, COUNTER.LIMIT_DECREASES, 1);
      lowerWatermark(control, value);
    } else {
      Atomics.add(counters, COUNTER.LIMIT_INCREASES, 1);
      wakeWaiters(control);
    }
    return value;
  }
}

function resetWindow(control: Int32Array): void {
  Atomics.store(control, CONTROL.WINDOW_SAMPLES, 0);
  Atomics.store(control, CONTROL.WINDOW_SEM_WAIT_MS, 0);
  Atomics.store(control, CONTROL.WINDOW_RTT_MS, 0);
}

/** Whole milliseconds that a window's Int32 sums can hold (a sample past a minute says as much as a minute). */
function clampMs(ms: number): number {
  return Math.min(60_000, Math.max(0, Math.round(ms)));
}

function lowerWatermark(control: Int32Array, value: number): void {
  for (;;) {
    const lowest = Atomics.load(control, CONTROL.LOWEST_LIMIT);
    if (value >= lowest || Atomics.compareExchange(control, CONTROL.LOWEST_LIMIT, lowest, value) === lowest) {
      return;
    }
  }
}
