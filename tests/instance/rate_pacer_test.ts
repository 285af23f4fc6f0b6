/** The rate-limit pacer (src/instance/rate_pacer.ts) on a shared host state, with explicit clock values. */
import { assert, assertEquals } from "../support/assert.ts";
import { parseRateLimitHeaders, RatePacer, reserveOf } from "../../src/instance/rate_pacer.ts";
import { createSharedHostState, viewsOf } from "../../src/instance/shared_host_state.ts";
import { newPacer, ruleHeaders } from "./rate_limit_fixtures.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

Deno.test("rate-limit headers: both needed, repeated values take the first, Remaining optional", () => {
  assertEquals(parseRateLimitHeaders(new Headers({ "x-ratelimit-limit": "100" })), null);
  assertEquals(
    parseRateLimitHeaders(
      new Headers({ "x-ratelimit-limit": "100, 100", "x-ratelimit-reset": "1700000000" }),
    ),
    { limit: 100, reset: 1700000000, remaining: null },
  );
  assertEquals(
    parseRateLimitHeaders(new Headers({ "x-ratelimit-limit": "x", "x-ratelimit-reset": "1" })),
    null,
  );
});

Deno.test("without a rule nothing waits", () => {
  const pacer = newPacer();
  assertEquals(pacer.schedule(T0), { waitMs: 0, retry: false });
  pacer.observe(new Headers({ date: new Date(T0).toUTCString() }), T0, 1);
  assertEquals(pacer.schedule(T0), { waitMs: 0, retry: false });
});

Deno.test("the window's budget less the reserve is spread evenly until the reset", () => {
  const pacer = newPacer();
  const limit = 50;
  // A 10 s window; the first response (1 in flight) shows it.
  pacer.observe(ruleHeaders(limit, T0 / 1000 + 10, T0), T0, 1);
  const starts: number[] = [];
  for (;;) {
    const { waitMs, retry } = pacer.schedule(T0);
    if (retry) break;
    starts.push(T0 + waitMs);
  }
  // 50 - 1 already sent - 5 reserve = 44 requests fit in the window, no more.
  assertEquals(starts.length, limit - 1 - reserveOf(limit));
  assert(starts.every((t) => t < T0 + 10_000), "a start after the reset");
  const gaps = starts.slice(1).map((t, i) => t - starts[i]);
  assert(Math.min(...gaps) >= 200, `requests too close: ${Math.min(...gaps)} ms`);
  assert(starts[starts.length - 1] - starts[0] >= 7_000, "the budget was not spread over the window");
});

Deno.test("a spent budget waits until the window resets, then the next window's rule takes over", () => {
  const pacer = newPacer();
  pacer.observe(ruleHeaders(10, T0 / 1000 + 5, T0, { remaining: 1 }), T0, 1);
  const spent = pacer.schedule(T0);
  assertEquals(spent.retry, true);
  assert(spent.waitMs >= 5_000, `waited only ${spent.waitMs} ms`);
  // After the reset nothing is known about the new window: go, and learn it from the response.
  assertEquals(pacer.schedule(T0 + 5_100), { waitMs: 0, retry: false });
  pacer.observe(ruleHeaders(10, T0 / 1000 + 10, T0 + 5_100), T0 + 5_100, 1);
  assertEquals(pacer.schedule(T0 + 5_100).retry, false);
  assertEquals(pacer.snapshot().reset, T0 / 1000 + 10);
});

Deno.test("X-RateLimit-Remaining, when sent, replaces the own count; late responses of an old window are ignored", () => {
  const pacer = newPacer();
  pacer.observe(ruleHeaders(100, T0 / 1000 + 60, T0), T0, 1);
  assertEquals(pacer.snapshot().remainingEstimate, 99);
  // Three requests underway; the answer to one of them says 30 are left: the other two are not counted yet.
  for (let held = 1; held <= 3; held++) pacer.sending(1, held);
  pacer.observe(ruleHeaders(100, T0 / 1000 + 60, T0 + 1_000, { remaining: 30 }), T0 + 1_000, 1);
  assertEquals(pacer.snapshot().remainingEstimate, 28);
  pacer.observe(ruleHeaders(100, T0 / 1000 - 60, T0 - 61_000), T0 + 1_000, 1);
  assertEquals(pacer.snapshot().reset, T0 / 1000 + 60);
});

Deno.test("the reset is placed on the local clock through the response's Date (instance clock skew)", () => {
  const pacer = newPacer();
  // The instance is 1 hour ahead of us; its window ends 4 s after its Date.
  const instanceNow = T0 + 3_600_000;
  pacer.observe(ruleHeaders(20, instanceNow / 1000 + 4, instanceNow), T0, 1);
  const { waitMs, retry } = pacer.schedule(T0 + 1_000);
  assertEquals(retry, false);
  assert(waitMs < 4_000, `paced as if the window ended an hour away: ${waitMs}`);
});

Deno.test("a request counts its cost against the window (a Batch API request: its items), capped at a window's share", () => {
  const pacer = newPacer();
  const limit = 50;
  pacer.observe(ruleHeaders(limit, T0 / 1000 + 10, T0), T0, 1);
  // 44 fit (50 - 1 sent - 5 reserve): four batches of 10 items, then a fifth of 10 no longer does.
  for (let i = 0; i < 4; i++) assertEquals(pacer.schedule(T0, 10).retry, false, `batch ${i}`);
  assertEquals(pacer.schedule(T0, 10).retry, true, "a batch beyond the window's budget");
  assertEquals(pacer.schedule(T0, 4).retry, false, "what is left still fits a smaller one");

  // A batch larger than a whole window's share takes what the window has left, never waits for ever.
  const fresh = newPacer();
  fresh.observe(ruleHeaders(limit, T0 / 1000 + 10, T0), T0, 1);
  assertEquals(fresh.schedule(T0, 500).retry, false);
  assertEquals(fresh.schedule(T0, 1).retry, true, "the big batch spent the window");
});

/** How many single requests the pacer lets go at `now` before the window's budget is spent. */
function fits(pacer: RatePacer, now: number): number {
  let n = 0;
  while (!pacer.schedule(now).retry) n++;
  return n;
}

Deno.test("a window learned while batches are underway counts their items, whichever realm sent them", () => {
  const buffer = createSharedHostState(4);
  // Two realms (a task thread each) on one host's shared state.
  const worker1 = new RatePacer(viewsOf(buffer));
  const worker2 = new RatePacer(viewsOf(buffer));
  worker1.sending(51, 1); // a Batch API request: 50 items and itself
  worker2.sending(51, 2);
  worker2.sending(1, 3); // a single request, whose answer shows the window
  worker2.observe(ruleHeaders(200, T0 / 1000 + 10, T0), T0, 1);
  // 200 - 103 underway - 20 reserve.
  assertEquals(fits(worker1, T0), 200 - 103 - reserveOf(200));
  assertEquals(worker1.snapshot().remainingEstimate, reserveOf(200));
});

Deno.test("the batch whose answer shows the window counts all of its items, and Remaining counts it already", () => {
  const pacer = newPacer();
  pacer.sending(51, 1);
  pacer.observe(ruleHeaders(200, T0 / 1000 + 10, T0), T0, 51);
  assertEquals(fits(pacer, T0), 200 - 51 - reserveOf(200));

  const told = newPacer();
  told.sending(51, 1);
  told.sending(21, 2);
  // The instance's Remaining counts the answered batch (51) but not the other one still underway (21).
  told.observe(ruleHeaders(200, T0 / 1000 + 10, T0, { remaining: 149 }), T0, 51);
  assertEquals(fits(told, T0), 149 - 21 - reserveOf(200));
});

Deno.test("answered requests leave the cost underway; a tally left by a terminated worker is dropped", () => {
  const pacer = newPacer();
  pacer.sending(51, 1);
  pacer.sending(1, 2);
  pacer.settled(51);
  pacer.observe(ruleHeaders(200, T0 / 1000 + 10, T0), T0, 1);
  assertEquals(fits(pacer, T0), 200 - 1 - reserveOf(200));

  // A worker terminated mid-batch never settles it; its permit is reclaimed, so the next request to be sent
  // holds the host's only permit: nothing else is underway, and the batch no longer counts.
  const leaked = newPacer();
  leaked.sending(51, 1);
  leaked.sending(1, 1);
  leaked.observe(ruleHeaders(200, T0 / 1000 + 10, T0), T0, 1);
  assertEquals(fits(leaked, T0), 200 - 1 - reserveOf(200));
});
