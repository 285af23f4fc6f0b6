/**
 * Event-loop delay of the thread it runs on: a timer due every 100 ms records how late it fired. A late timer
 * means the thread was busy (long synchronous work, a large JSON parse, garbage collection), and so was
 * everything else waiting on it: REST requests, offset commits, task-thread messages.
 */
import { DURATION_BUCKETS, type MetricsRegistry } from "./metrics.ts";

const INTERVAL_MS = 100;

/** The duration bounds up to 2.5 s: a longer stall shows in the +Inf bucket. */
export const EVENT_LOOP_DELAY_BUCKETS: readonly number[] = DURATION_BUCKETS.filter((bound) => bound <= 2.5);

/** Starts sampling into `registry` (`tablesync_event_loop_delay_seconds`); returns the function that stops it. */
export function sampleEventLoopDelay(registry: MetricsRegistry): () => void {
  let due = performance.now() + INTERVAL_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    registry.observe(
      "tablesync_event_loop_delay_seconds",
      {},
      Math.max(0, now - due) / 1000,
      EVENT_LOOP_DELAY_BUCKETS,
    );
    due = now + INTERVAL_MS;
  }, INTERVAL_MS);
  // The sampler alone must not keep the process alive.
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
