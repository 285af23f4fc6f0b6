/**
 * Event-loop delay of the thread it runs on: a timer due every 100 ms records how late it fired. A late timer
 * means the thread was busy (long synchronous work, a large JSON parse, garbage collection), and so was
 * everything else waiting on it: REST requests, offset commits, worker messages.
 */
import type { MetricsRegistry } from "./metrics.ts";

const INTERVAL_MS = 100;

export const EVENT_LOOP_DELAY_BUCKETS: readonly number[] = [
  0.001,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
];

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
