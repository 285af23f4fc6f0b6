/** The burst allowance (src/instance/burst_allowance.ts) and the pacer's bursts while tables catch up (rate_pacer.ts). */
import { assert, assertEquals } from "../support/assert.ts";
import { burstAllowance } from "../../src/instance/burst_allowance.ts";
import { RatePacer, reserveOf } from "../../src/instance/rate_pacer.ts";
import { createSharedHostState, viewsOf } from "../../src/instance/shared_host_state.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const HOUR = 3_600_000;
const LIMIT = 3600;

function hourlyPacer(reserve?: number): RatePacer {
  const pacer = new RatePacer(viewsOf(createSharedHostState(4)));
  if (reserve !== undefined) pacer.configureBurstReserve(reserve);
  pacer.sending(1, 1);
  // The first answer, at the start of the hour, shows the rule (it counted itself).
  pacer.observe(
    new Headers({
      "x-ratelimit-limit": String(LIMIT),
      "x-ratelimit-reset": String((T0 + HOUR) / 1000),
      "date": new Date(T0).toUTCString(),
    }),
    T0,
  );
  pacer.settled(1);
  return pacer;
}

/** Requests that may start at `now` without waiting (until the first that must wait). */
function atOnce(pacer: RatePacer, now: number, most = 10_000): number {
  for (let n = 0; n < most; n++) {
    const { waitMs, retry } = pacer.schedule(now);
    if (retry || waitMs > 0) return n;
  }
  return most;
}

Deno.test("burst allowance: the budget above the reserve's share of the rest of the window's even need", () => {
  const window = { evenBudget: 3240, startAt: 0, resetAt: 3_600_000 };
  // At the window's start: half the budget (reserve 0.5), all of it (0), none (1).
  assertEquals(burstAllowance({ ...window, left: 3240, now: 0, reserve: 0.5 }), 1620);
  assertEquals(burstAllowance({ ...window, left: 3240, now: 0, reserve: 0 }), 3240);
  assertEquals(burstAllowance({ ...window, left: 3240, now: 0, reserve: 1 }), 0);
  // Half-way through a window spent at the even pace: half of what is left.
  assertEquals(burstAllowance({ ...window, left: 1620, now: 1_800_000, reserve: 0.5 }), 810);
  // A window spent faster than that has none left to burst.
  assert(burstAllowance({ ...window, left: 1000, now: 1_800_000, reserve: 0.75 }) < 0);
  // At the reset the rest of the window needs nothing, but never more than the budget left.
  assertEquals(burstAllowance({ ...window, left: 40, now: 3_600_000, reserve: 0.5 }), 40);
  assertEquals(burstAllowance({ ...window, left: 40, now: 4_000_000, reserve: 0.5 }), 40);
});

Deno.test("pacer: no catch-up, no burst: the second request waits its even slot", () => {
  const pacer = hourlyPacer();
  assertEquals(atOnce(pacer, T0), 1);
});

Deno.test("pacer: while a table catches up, half the hour's budget goes at once, then the even pace of what is left", () => {
  const pacer = hourlyPacer(0.5);
  pacer.registerCatchUps(1);
  const budget = LIMIT - 1 - reserveOf(LIMIT); // 3239: the first request was counted
  const burst = atOnce(pacer, T0);
  // Until what is left is half the budget (what the rest of the hour needs at the even pace, times 0.5).
  assertEquals(burst, budget - Math.ceil(budget / 2));
  // The request that stopped the burst took the even slot after the first; the rest of the hour is paced by
  // what is left, half the budget: the next slot comes twice the even interval (3600 s / 3239) later.
  const first = pacer.schedule(T0).waitMs;
  const second = pacer.schedule(T0).waitMs;
  const even = HOUR / budget;
  assert(Math.abs(second - first - 2 * even) < 10, `slots ${first} and ${second} ms after the burst`);
  // Everything the window allows, bursts included, stays within the rule less its tenth.
  let total = burst + 3;
  for (;;) {
    const next = pacer.schedule(T0);
    if (next.retry) break;
    total++;
  }
  assertEquals(total, budget);
});

Deno.test("pacer: a burst stops when the catch-up ends, and the reserve 1 allows none", () => {
  const pacer = hourlyPacer(0.5);
  pacer.registerCatchUps(2);
  assertEquals(atOnce(pacer, T0, 100), 100);
  pacer.registerCatchUps(-2);
  assertEquals(atOnce(pacer, T0 + 1), 0);

  const careful = hourlyPacer(1);
  careful.registerCatchUps(1);
  assertEquals(atOnce(careful, T0), 1);
});

Deno.test("pacer: late in a window spent at the even pace, a burst gets what the reserve leaves of the rest", () => {
  const pacer = hourlyPacer(0.5);
  // Three quarters of the hour pass, spending at the even pace (the even schedule's slots up to then).
  let sent = 0;
  for (;;) {
    const { waitMs } = pacer.schedule(T0);
    sent++;
    if (waitMs >= HOUR * 0.75) break;
  }
  pacer.registerCatchUps(1);
  const now = T0 + HOUR * 0.75;
  const left = LIMIT - 1 - reserveOf(LIMIT) - sent;
  const burst = atOnce(pacer, now);
  // Half of what the last quarter needs at the even pace (about 810) may go at once, give or take a request.
  assert(Math.abs(burst - Math.floor(left - 0.5 * (LIMIT - 1 - reserveOf(LIMIT)) / 4)) <= 2, `${burst}`);
});

Deno.test("pacer: connectors that disagree on the burst reserve get the larger", () => {
  const pacer = new RatePacer(viewsOf(createSharedHostState(4)));
  assertEquals(pacer.burstReserve, 0.5);
  pacer.configureBurstReserve(0.8);
  pacer.configureBurstReserve(0.2);
  assertEquals(pacer.burstReserve, 0.8);
  pacer.configureBurstReserve(0);
  assertEquals(pacer.burstReserve, 0.8);
});
