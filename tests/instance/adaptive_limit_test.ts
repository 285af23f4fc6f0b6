/** The adaptive limit's rules on a shared host state, without a server. */
import { assertEquals } from "../support/assert.ts";
import {
  MIN_WINDOW,
  nextLimit,
  queuedEstimate,
  RECOVERY_SUCCESSES,
} from "../../src/instance/adaptive_limit.ts";
import { PermitPool } from "../../src/instance/permit_pool.ts";
import { createSharedHostState } from "../../src/instance/shared_host_state.ts";
import { readHostMetrics } from "../../src/instance/instance_metrics.ts";

const newPool = (max: number) => new PermitPool(createSharedHostState(max));

/** Holds every permit, then answers a window of responses with this wait and round trip. */
function window(pool: PermitPool, semWaitMs: number, rttMs: number, held = pool.limit): number {
  const permits = Array.from({ length: held }, () => pool.tryAcquire()!);
  const samples = Math.max(MIN_WINDOW, pool.limit);
  for (let i = 0; i < samples - 1; i++) pool.succeeded({ semWaitMs, rttMs });
  // Released before the window closes: the next window's peak starts from what is held then (none).
  permits.forEach((p) => p.release());
  return pool.succeeded({ semWaitMs, rttMs });
}

Deno.test("delay rule: Little's law estimate of our requests waiting for a thread", () => {
  assertEquals(queuedEstimate(8, 0, 1600), 0);
  assertEquals(queuedEstimate(8, 400, 1600), 2);
  assertEquals(queuedEstimate(4, 10, 0), 0);
});

Deno.test("delay rule: grows when waits are near zero and every permit was used; holds; shrinks by the excess", () => {
  assertEquals(nextLimit(4, 0, 4), 5);
  assertEquals(nextLimit(4, 0.4, 4), 5);
  assertEquals(nextLimit(4, 0, 3), 4, "app-limited: the permits there were not all used");
  assertEquals(nextLimit(5, 1, 5), 5, "about one waiting: the threads are busy, hold");
  assertEquals(nextLimit(5, 2, 5), 5);
  assertEquals(nextLimit(8, 3, 8), 6, "three waiting: drop two, keep one waiting");
  assertEquals(nextLimit(16, 40, 16), 8, "never more than halved in one window");
  assertEquals(nextLimit(1, 9, 1), 1, "never below one");
});

Deno.test("adaptive limit: Server-Timing windows steer the shared limit up to the max and down", () => {
  const pool = newPool(8);
  pool.throttled();
  pool.throttled();
  assertEquals(pool.limit, 2);
  // Near-zero semaphore waits with every permit busy: one more per window, up to the max.
  const seen = [];
  for (let i = 0; i < 8; i++) seen.push(window(pool, 0, 200));
  assertEquals(seen, [3, 4, 5, 6, 7, 8, 8, 8]);
  // Waits grow (each request queued half its round trip: four of eight waiting): down by the excess.
  assertEquals(window(pool, 100, 200), 5);
  // About one waiting holds the limit.
  assertEquals(window(pool, 40, 200), 5);
  // Idle permits: near-zero waits do not grow it.
  assertEquals(window(pool, 0, 200, 2), 5);
  const metrics = readHostMetrics("h", pool.buffer);
  assertEquals([metrics.limitIncreases, metrics.limitDecreases, metrics.lowestLimit], [6, 3, 2]);
});

Deno.test("adaptive limit: any 429 halves it and restarts the window; without Server-Timing, 50 successes give one back", () => {
  const pool = newPool(8);
  // Half a window of long waits, then a 429: the window starts again after it.
  const permits = Array.from({ length: 8 }, () => pool.tryAcquire()!);
  for (let i = 0; i < 4; i++) pool.succeeded({ semWaitMs: 1000, rttMs: 1000 });
  assertEquals(pool.throttled(), 4);
  permits.forEach((p) => p.release());
  assertEquals(window(pool, 0, 100), 5, "the long waits before the 429 were forgotten");
  for (let i = 1; i < RECOVERY_SUCCESSES; i++) assertEquals(pool.succeeded(), 5);
  assertEquals(pool.succeeded(), 6);
});
