/**
 * The host's request budget (src/instance/rate_pacer.ts): learned from a rule, configured, the smaller of both,
 * a worker group member's share, a new window, and a rule's 429 that spends the window.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { RatePacer, reserveOf } from "../../src/instance/rate_pacer.ts";
import { createSharedHostState, viewsOf } from "../../src/instance/shared_host_state.ts";
import { newPacer, ruleHeaders } from "./rate_limit_fixtures.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const HOUR = 3_600_000;
const RULE = "0123456789abcdef0123456789abcdef";

/** Requests the pacer lets start in the current window, asked at `now`. */
function startsInWindow(pacer: RatePacer, now: number): number {
  let n = 0;
  while (!pacer.schedule(now).retry) n++;
  return n;
}

Deno.test("no rule and no configured budget: no budget is known, nothing waits", () => {
  const pacer = newPacer();
  assertEquals(pacer.pollRate(T0), null);
  assertEquals(pacer.schedule(T0), { waitMs: 0, retry: false });
});

Deno.test("learned from the rule's headers: the window's budget less the reserve, over the time left", () => {
  const pacer = newPacer();
  pacer.observe(ruleHeaders(3600, T0 / 1000 + 3600, T0, { rule: RULE }), T0, 1);
  const rate = pacer.pollRate(T0)!;
  // (3600 - 1 sent - 360 reserve) per 3600 s.
  assert(Math.abs(rate - (3600 - 1 - reserveOf(3600)) / 3600) < 1e-9, `rate ${rate}`);
  assertEquals(startsInWindow(pacer, T0), 3600 - 1 - reserveOf(3600));
});

Deno.test("configured budget without a rule: an hour-long window of its own", () => {
  const pacer = newPacer();
  pacer.configure(720);
  const rate = pacer.pollRate(T0)!;
  assert(Math.abs(rate - (720 - reserveOf(720)) / 3600) < 1e-9, `rate ${rate}`);
  assertEquals(startsInWindow(pacer, T0), 720 - reserveOf(720));
  // The window ends an hour later; a new one begins with the full budget.
  assert(pacer.schedule(T0).waitMs >= HOUR - 1000);
  assertEquals(startsInWindow(pacer, T0 + HOUR), 720 - reserveOf(720));
});

Deno.test("configured and learned: the smaller wins, whichever is smaller", () => {
  const lower = newPacer();
  lower.configure(200);
  lower.observe(ruleHeaders(1000, T0 / 1000 + 3600, T0, { rule: RULE }), T0, 1);
  assertEquals(startsInWindow(lower, T0), 200 - 1 - reserveOf(200));

  const higher = newPacer();
  higher.configure(5000);
  higher.observe(ruleHeaders(1000, T0 / 1000 + 3600, T0, { rule: RULE }), T0, 1);
  assertEquals(startsInWindow(higher, T0), 1000 - 1 - reserveOf(1000));

  // Two connectors configure different budgets: the smaller applies.
  const both = newPacer();
  both.configure(300);
  both.configure(900);
  assertEquals(startsInWindow(both, T0), 300 - reserveOf(300));
});

Deno.test("a rule seen after a configured window replaces it and keeps what was sent", () => {
  const pacer = newPacer();
  pacer.configure(10_000);
  for (let i = 0; i < 10; i++) pacer.schedule(T0);
  // The instance's window ends in 30 minutes, earlier than the configured one.
  pacer.observe(ruleHeaders(400, T0 / 1000 + 1800, T0, { rule: RULE }), T0, 1);
  assertEquals(startsInWindow(pacer, T0), 400 - 10 - 1 - reserveOf(400));
});

Deno.test("a worker group member takes its share of the budget", () => {
  const pacer = newPacer();
  pacer.setMembers(3);
  pacer.observe(ruleHeaders(3000, T0 / 1000 + 3600, T0, { rule: RULE }), T0, 1);
  assertEquals(startsInWindow(pacer, T0), 1000 - 1 - reserveOf(1000));
  const standalone = newPacer();
  standalone.observe(ruleHeaders(3000, T0 / 1000 + 3600, T0, { rule: RULE }), T0, 1);
  assertEquals(startsInWindow(standalone, T0), 3000 - 1 - reserveOf(3000));
});

Deno.test("a new window restores the budget", () => {
  const pacer = newPacer();
  pacer.observe(ruleHeaders(50, T0 / 1000 + 60, T0, { rule: RULE }), T0, 1);
  startsInWindow(pacer, T0);
  assertEquals(pacer.schedule(T0).retry, true);
  const next = T0 + 60_000;
  pacer.observe(ruleHeaders(50, next / 1000 + 60, next, { rule: RULE }), next, 1);
  assertEquals(startsInWindow(pacer, next), 50 - 1 - reserveOf(50));
});

Deno.test("a rule's 429 spends the window: no more requests until its reset (429s come in bursts)", () => {
  const pacer = newPacer();
  pacer.observe(ruleHeaders(1000, T0 / 1000 + 600, T0, { rule: RULE }), T0, 1);
  assert(pacer.pollRate(T0)! > 0);
  // Another client of the same user spent the budget: the instance says so with a 429 of the rule.
  pacer.observe(
    ruleHeaders(1000, T0 / 1000 + 600, T0 + 1000, { rule: RULE, retryAfter: 599 }),
    T0 + 1000,
    1,
    429,
  );
  assertEquals(pacer.pollRate(T0 + 1000), 0);
  const { waitMs, retry } = pacer.schedule(T0 + 1000);
  assert(retry && waitMs >= 599_000, `waited ${waitMs} ms`);
  // A 429 without Retry-After (a full semaphore queue) does not spend the window.
  const other = newPacer();
  other.observe(ruleHeaders(1000, T0 / 1000 + 600, T0, { rule: RULE }), T0, 1);
  other.observe(ruleHeaders(1000, T0 / 1000 + 600, T0, { rule: RULE }), T0, 1, 429);
  assert(other.pollRate(T0)! > 0);
  // The next window starts afresh.
  const next = T0 + 600_000;
  pacer.observe(ruleHeaders(1000, next / 1000 + 600, next, { rule: RULE }), next, 1);
  assert(pacer.pollRate(next)! > 0);
});

Deno.test("polled tables are counted across tasks of the host", () => {
  const buffer = createSharedHostState(4);
  const a = new RatePacer(viewsOf(buffer));
  const b = new RatePacer(viewsOf(buffer));
  a.registerTables(3);
  b.registerTables(2);
  assertEquals(a.tables, 5);
  b.registerTables(-2);
  assertEquals(a.tables, 3);
});

Deno.test("after a window's end one request learns the next window; the others wait for it", () => {
  const pacer = newPacer();
  pacer.observe(ruleHeaders(100, T0 / 1000 + 10, T0, { rule: RULE }), T0, 1);
  const after = T0 + 10_000;
  assertEquals(pacer.schedule(after), { waitMs: 0, retry: false });
  const others = pacer.schedule(after);
  assert(others.retry && others.waitMs > 0, JSON.stringify(others));
  // Its answer shows the new window: requests are paced within it again.
  pacer.observe(ruleHeaders(100, after / 1000 + 10, after, { rule: RULE }), after, 1);
  assertEquals(pacer.schedule(after), { waitMs: 0, retry: false });
  // Should the learning request get no answer, another goes a second later.
  const lost = newPacer();
  lost.observe(ruleHeaders(100, T0 / 1000 + 10, T0, { rule: RULE }), T0, 1);
  assertEquals(lost.schedule(after).retry, false);
  assertEquals(lost.schedule(after + 500).retry, true);
  assertEquals(lost.schedule(after + 1000).retry, false);
});

Deno.test("a response without a rule after the window ended: the rule is forgotten, requests go unpaced", () => {
  const pacer = newPacer();
  pacer.observe(ruleHeaders(100, T0 / 1000 + 10, T0, { rule: RULE }), T0, 1);
  // Within the window a response without the rule (an endpoint it does not cover) changes nothing.
  pacer.observe(new Headers({ date: new Date(T0 + 1000).toUTCString() }), T0 + 1000, 1);
  assert(pacer.pollRate(T0 + 1000) !== null);
  const after = T0 + 10_000;
  pacer.schedule(after);
  pacer.observe(new Headers({ date: new Date(after).toUTCString() }), after, 1);
  assertEquals(pacer.pollRate(after), null);
  for (let i = 0; i < 5; i++) assertEquals(pacer.schedule(after), { waitMs: 0, retry: false });
});
