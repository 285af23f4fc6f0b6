import { assert, assertEquals } from "../support/assert.ts";
import { backoffCeiling, fullJitter } from "../../src/common/delay.ts";
import { isRetryableStatus, RetryPolicy } from "../../src/common/retry_policy.ts";
import { parseRetryAfter } from "../../src/common/retry_after.ts";

Deno.test("retryable set: 429, 408, 425 and every 5xx, nothing else", () => {
  const retryable = [];
  for (let status = 100; status < 600; status++) if (isRetryableStatus(status)) retryable.push(status);
  assertEquals(retryable.filter((s) => s < 500), [408, 425, 429]);
  assertEquals(retryable.filter((s) => s >= 500).length, 100);
});

Deno.test("backoff: ceiling starts at the initial backoff, doubles, and is capped", () => {
  assertEquals([1, 2, 3, 4, 5, 6, 7].map((n) => backoffCeiling(n, 500, 30000)), [
    500,
    1000,
    2000,
    4000,
    8000,
    16000,
    30000,
  ]);
  assertEquals(backoffCeiling(5000, 500, 30000), 30000);
  assertEquals(backoffCeiling(3, 0, 30000), 0);
});

Deno.test("backoff: full jitter stays within [0, ceiling)", () => {
  assertEquals(fullJitter(1000, () => 0), 0);
  assertEquals(fullJitter(1000, () => 0.999999), 999);
  assertEquals(fullJitter(1000, () => 0.5), 500);
});

Deno.test("retry policy: at most max attempts in total", () => {
  const policy = new RetryPolicy({
    maxAttempts: 3,
    maxElapsedMs: 1e9,
    initialBackoffMs: 100,
    maxBackoffMs: 1000,
  }, () => 0.5);
  assertEquals(policy.next(1, 0, null), { retry: true, waitMs: 50 });
  assertEquals(policy.next(2, 0, null), { retry: true, waitMs: 100 });
  const third = policy.next(3, 0, null);
  assert(!third.retry && third.reason.includes("svc.retry.max.attempts (3)"));
});

Deno.test("retry policy: no retry when the next wait would pass max elapsed", () => {
  const policy = new RetryPolicy({
    maxAttempts: 10,
    maxElapsedMs: 1000,
    initialBackoffMs: 400,
    maxBackoffMs: 400,
  }, () => 0.99);
  assertEquals(policy.next(1, 500, null), { retry: true, waitMs: 396 });
  const late = policy.next(2, 700, null);
  assert(!late.retry && late.reason.includes("svc.retry.max.elapsed.ms (1000)"), JSON.stringify(late));
});

Deno.test("retry policy: backoff capped at max backoff even after many attempts", () => {
  const policy = new RetryPolicy({
    maxAttempts: 100,
    maxElapsedMs: 1e12,
    initialBackoffMs: 10,
    maxBackoffMs: 250,
  }, () => 0.999);
  for (let attempt = 1; attempt < 60; attempt++) {
    const decision = policy.next(attempt, 0, null);
    assert(decision.retry && decision.waitMs < 250, `attempt ${attempt}: ${JSON.stringify(decision)}`);
  }
});

Deno.test("retry policy: Retry-After replaces the backoff, still bounded by max elapsed", () => {
  const policy = new RetryPolicy({
    maxAttempts: 5,
    maxElapsedMs: 10_000,
    initialBackoffMs: 1,
    maxBackoffMs: 2,
  }, () => 0.5);
  assertEquals(policy.next(1, 0, 7000), { retry: true, waitMs: 7000 });
  const tooLong = policy.next(1, 0, 11_000);
  assert(!tooLong.retry && tooLong.reason.includes("from Retry-After"));
});

Deno.test("Retry-After: delay seconds and HTTP dates", () => {
  assertEquals(parseRetryAfter("3", null), 3000);
  assertEquals(parseRetryAfter(" 0 ", null), 0);
  assertEquals(parseRetryAfter(null, null), null);
  assertEquals(parseRetryAfter("soon", null), null);
  assertEquals(parseRetryAfter("-1", null), null);
  // Against the response's own Date header: clock skew does not matter.
  assertEquals(parseRetryAfter("Wed, 21 Oct 2015 07:28:05 GMT", "Wed, 21 Oct 2015 07:28:00 GMT"), 5000);
  // Without a Date header, against our clock; a past date means now.
  const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
  assertEquals(parseRetryAfter("Wed, 21 Oct 2015 07:28:02 GMT", null, now), 2000);
  assertEquals(parseRetryAfter("Wed, 21 Oct 2015 07:27:00 GMT", null, now), 0);
});
