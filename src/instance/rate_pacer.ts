/**
 * Pacing before 429: when the instance's responses carry a rate-limit rule (`X-RateLimit-Limit`, requests per
 * window, and `X-RateLimit-Reset`, the UNIX second the window ends; table-api.md §4.2), requests are spread so the
 * window's budget lasts until its reset instead of being spent in a burst that ends in 429s and a halved permit
 * limit. `X-RateLimit-Remaining` is not documented for the instance but is honoured when a proxy or a future
 * release sends it; without it, the budget is the limit minus the requests this process sent in the window.
 *
 * The state lives in the host's shared buffer (shared_host_state.ts), so every task worker of the process paces
 * against one budget and one schedule, as they share one permit pool. Updates are CAS loops on BigInt64 slots.
 *
 * Time: the reset is an instance timestamp; it is turned into a local deadline with the response's `Date` header
 * (the instance clock). `Date` is truncated to the second, so the local deadline errs late, which spreads the
 * budget over slightly more time than is left: the safe direction.
 */
import type { SharedHostViews } from "./shared_host_state.ts";

/** BigInt64 slots in `SharedHostViews.pacing`. */
const SLOT = {
  /** `X-RateLimit-Reset` of the window we know (UNIX seconds); 0 while no rule has been seen. */
  WINDOW: 0,
  /** Local time (ms) at which that window ends. */
  RESET_AT: 1,
  /** `X-RateLimit-Limit`. */
  LIMIT: 2,
  /** Requests still allowed at the reference point (window start, or the last `X-RateLimit-Remaining`). */
  BUDGET: 3,
  /** Requests started since the reference point. */
  SENT: 4,
  /** Local time (ms) before which the next request may not start. */
  NEXT_AT: 5,
  /** Requests that were delayed by pacing (a metric). */
  PACED: 6,
} as const;

/** Extra wait after a window's end when its budget ran out, so the next window has surely begun. */
const AFTER_RESET_MS = 100;

export interface RateLimitHeaders {
  limit: number;
  /** UNIX seconds. */
  reset: number;
  remaining: number | null;
}

/** The rate-limit rule a response reports, or null when it carries none (no rule matches the user). */
export function parseRateLimitHeaders(headers: Headers): RateLimitHeaders | null {
  const limit = integerHeader(headers, "x-ratelimit-limit");
  const reset = integerHeader(headers, "x-ratelimit-reset");
  if (limit === null || reset === null || limit <= 0 || reset <= 0) return null;
  return { limit, reset, remaining: integerHeader(headers, "x-ratelimit-remaining") };
}

/** A header's integer value; proxies may repeat a header ("100, 100"), so the first entry counts. */
function integerHeader(headers: Headers, name: string): number | null {
  const value = headers.get(name)?.split(",")[0].trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
}

/** Requests held back from each window's budget: other clients of the same user, and enforcement lag. */
export function reserveOf(limit: number): number {
  return Math.max(1, Math.floor(limit / 10));
}

export class RatePacer {
  private readonly slots: BigInt64Array;

  constructor(views: SharedHostViews) {
    this.slots = views.pacing;
  }

  /**
   * Learns the rule from a response received at local time `receivedAt`. `inFlight` is the number of requests
   * underway (this one included); they were sent in the current window, so they count against its budget.
   */
  observe(headers: Headers, receivedAt: number, inFlight: number): void {
    const rule = parseRateLimitHeaders(headers);
    if (!rule) return;
    const date = Date.parse(headers.get("date") ?? "");
    const instanceNow = Number.isNaN(date) ? receivedAt : date;
    const resetAt = receivedAt + Math.max(0, rule.reset * 1000 - instanceNow);
    const s = this.slots;
    const known = Atomics.load(s, SLOT.WINDOW);
    const window = BigInt(rule.reset);
    if (window < known) return; // a late response from an earlier window
    if (window > known) {
      if (Atomics.compareExchange(s, SLOT.WINDOW, known, window) !== known) return; // another realm won
      Atomics.store(s, SLOT.LIMIT, BigInt(rule.limit));
      Atomics.store(s, SLOT.RESET_AT, BigInt(resetAt));
      Atomics.store(s, SLOT.NEXT_AT, 0n);
      Atomics.store(s, SLOT.BUDGET, BigInt(rule.remaining ?? rule.limit));
      Atomics.store(s, SLOT.SENT, BigInt(Math.max(0, rule.remaining === null ? inFlight : inFlight - 1)));
      return;
    }
    if (rule.remaining !== null) {
      // The instance's own count: it includes this request but not the others still in flight.
      Atomics.store(s, SLOT.BUDGET, BigInt(rule.remaining));
      Atomics.store(s, SLOT.SENT, BigInt(Math.max(0, inFlight - 1)));
    }
  }

  /**
   * Claims a start time for one request and returns how long to wait for it (0: go now). `retry: true` means
   * the window's budget is spent: wait, then call `schedule` again (the next window is unknown until a response
   * shows it).
   */
  schedule(now: number): { waitMs: number; retry: boolean } {
    const s = this.slots;
    if (Atomics.load(s, SLOT.WINDOW) === 0n) return { waitMs: 0, retry: false };
    const resetAt = Number(Atomics.load(s, SLOT.RESET_AT));
    if (now >= resetAt) return { waitMs: 0, retry: false };
    const reserve = reserveOf(Number(Atomics.load(s, SLOT.LIMIT)));
    for (;;) {
      const left = Number(Atomics.load(s, SLOT.BUDGET) - Atomics.load(s, SLOT.SENT)) - reserve;
      const next = Atomics.load(s, SLOT.NEXT_AT);
      const at = Math.max(now, Number(next));
      if (left <= 0 || at >= resetAt) {
        Atomics.add(s, SLOT.PACED, 1n);
        return { waitMs: resetAt - now + AFTER_RESET_MS, retry: true };
      }
      // The budget left is spread over the time from this slot to the reset.
      const interval = (resetAt - at) / left;
      if (Atomics.compareExchange(s, SLOT.NEXT_AT, next, BigInt(Math.ceil(at + interval))) !== next) continue;
      Atomics.add(s, SLOT.SENT, 1n);
      if (at > now) Atomics.add(s, SLOT.PACED, 1n);
      return { waitMs: at - now, retry: false };
    }
  }

  /** What the metrics endpoint shows: the known rule and how many requests pacing held back. */
  snapshot(): { limit: number; reset: number; remainingEstimate: number; paced: number } {
    const s = this.slots;
    return {
      limit: Number(Atomics.load(s, SLOT.LIMIT)),
      reset: Number(Atomics.load(s, SLOT.WINDOW)),
      remainingEstimate: Math.max(0, Number(Atomics.load(s, SLOT.BUDGET) - Atomics.load(s, SLOT.SENT))),
      paced: Number(Atomics.load(s, SLOT.PACED)),
    };
  }
}
