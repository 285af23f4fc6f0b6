/**
 * Pacing before 429: when the instance's responses carry a rate-limit rule (`X-RateLimit-Limit`, requests per
 * window, and `X-RateLimit-Reset`, the UNIX second the window ends; table-api.md §4.2), requests are spread so the
 * window's budget lasts until its reset instead of being spent in a burst that ends in 429s and a halved permit
 * limit. `X-RateLimit-Remaining` is not documented for the instance but is honoured when a proxy or a future
 * release sends it; without it, the budget is the limit minus what this process's requests counted in the window
 * (a Batch API request counts its items and itself), those still underway when the window was learned included.
 *
 * The state lives in the host's shared buffer (shared_host_state.ts), so every task thread of the process paces
 * against one budget and one schedule, as they share one permit pool. Updates are CAS loops on BigInt64 slots.
 *
 * The host's request budget (one per instance host, learned or configured; the smaller wins):
 * - learned: `X-RateLimit-Limit` requests until `X-RateLimit-Reset` (the instance counts per user and per hour);
 * - configured: `svc.http.requests.per.hour`; before any rule is seen it makes an hour-long window of its own
 *   (local clock), and once a rule is seen the window is the rule's and its limit is min(rule, configured);
 * - in a worker group each member takes `1 / members` of it (`setMembers`), so N daemons of one user together
 *   stay inside one rule; a standalone daemon's share is 1.
 * A 429 that carries the rule (`Retry-After` and `X-RateLimit-*`) means the instance's count reached the limit:
 * counts only grow until the reset, and nodes commit them every 30 s, so more requests would only meet a burst
 * of 429s. The window is then treated as spent until its reset.
 *
 * The poll scheduler (src/source/poll_scheduler.ts) asks `pollRate` what the window can still afford per second
 * and shares it among the host's polled tables (`registerTables`); what polls leave unspent stays in the
 * budget, and the pacing interval (budget left over time left) lets a backfill spend it. While a table catches
 * up (`registerCatchUps`), requests may also run ahead of that pace within the burst allowance
 * (burst_allowance.ts), which keeps `svc.http.rate.limit.reserve` of the even pace for the rest of the window.
 *
 * Time: the reset is an instance timestamp; it is turned into a local deadline with the response's `Date` header
 * (the instance clock). `Date` is truncated to the second, so the local deadline errs late, which spreads the
 * budget over slightly more time than is left: the safe direction.
 */
import type { SharedHostViews } from "./shared_host_state.ts";
import { burstAllowance } from "./burst_allowance.ts";

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
  /** `svc.http.requests.per.hour` (the smallest configured on this host); 0 when none. */
  CONFIGURED: 7,
  /** Members of the worker group sharing the budget (0 or 1: standalone). */
  MEMBERS: 8,
  /** 1 while the window is one made from the configured budget (no rule seen yet): a real rule replaces it. */
  SYNTHETIC: 9,
  /** 1 once a 429 of the rule said the window's budget is spent. */
  EXHAUSTED: 10,
  /** Tables polled against this host, across every task thread of the process. */
  TABLES: 11,
  /**
   * What the requests underway count against the rule, summed over every realm (a Batch API request: its items, and itself).
   * They were sent in the window a response shows, so a newly learned window starts with them spent.
   */
  COST_IN_FLIGHT: 12,
  /** Tables (and backfills, reconcile passes) catching up against this host: while any is, requests may burst. */
  BURSTING: 13,
  /** Local time (ms) the known window was learned or made: where its even pace was set. */
  START_AT: 14,
  /** The budget left (`#left`) when the window was learned: spread evenly to its reset, the even pace. */
  EVEN_BUDGET: 15,
  /** `svc.http.rate.limit.reserve` in thousandths, plus one (0: none configured, the default applies). */
  BURST_RESERVE: 16,
} as const;

/** The share of the even pace's need for the rest of a window that a burst leaves unspent, unless configured. */
export const DEFAULT_BURST_RESERVE = 0.5;

/** The window a configured budget makes when the instance sends no rule (the instance's rules are hourly). */
const CONFIGURED_WINDOW_MS = 3_600_000;

/** After a window's end, one request learns the next window; another may go if it has no answer by then. */
const PROBE_MS = 1000;
/** How often the others look whether the next window is known. */
const PROBE_RETRY_MS = 20;
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
   * A request that counts `cost` against the rule is being sent (called with its permit held; `permitsHeld`:
   * the host's permits held now, its own included). When it is the only one holding a permit, nothing else can
   * be underway: what the tally still holds was left by a task thread terminated mid-request, and is dropped.
   */
  sending(cost: number, permitsHeld: number): void {
    const s = this.slots;
    for (;;) {
      const tally = Atomics.load(s, SLOT.COST_IN_FLIGHT);
      const healed = permitsHeld <= 1 && tally !== 0n ? 0n : tally;
      if (Atomics.compareExchange(s, SLOT.COST_IN_FLIGHT, tally, healed + BigInt(cost)) === tally) return;
    }
  }

  /** A request of `sending` has its answer (or failed): its cost is no longer underway. */
  settled(cost: number): void {
    const s = this.slots;
    for (;;) {
      const tally = Atomics.load(s, SLOT.COST_IN_FLIGHT);
      const next = tally > BigInt(cost) ? tally - BigInt(cost) : 0n;
      if (Atomics.compareExchange(s, SLOT.COST_IN_FLIGHT, tally, next) === tally) return;
    }
  }

  /**
   * Learns the rule from the answer, received at local time `receivedAt`, to a request that counted `cost`. The
   * cost of every request underway (this one included: `sending` tallied it) was sent in the current window, so
   * it counts against its budget.
   */
  observe(headers: Headers, receivedAt: number, cost = 1, status = 200): void {
    const rule = parseRateLimitHeaders(headers);
    if (!rule) {
      this.#ruleGone(receivedAt);
      return;
    }
    const date = Date.parse(headers.get("date") ?? "");
    const instanceNow = Number.isNaN(date) ? receivedAt : date;
    const resetAt = receivedAt + Math.max(0, rule.reset * 1000 - instanceNow);
    const s = this.slots;
    const known = Atomics.load(s, SLOT.WINDOW);
    const window = BigInt(rule.reset);
    const synthetic = Atomics.load(s, SLOT.SYNTHETIC) === 1n;
    if (window < known && !synthetic) return; // a late response from an earlier window
    if (window !== known) {
      if (Atomics.compareExchange(s, SLOT.WINDOW, known, window) !== known) return; // another realm won
      Atomics.store(s, SLOT.LIMIT, BigInt(rule.limit));
      Atomics.store(s, SLOT.RESET_AT, BigInt(resetAt));
      Atomics.store(s, SLOT.NEXT_AT, 0n);
      Atomics.store(s, SLOT.BUDGET, BigInt(rule.remaining ?? rule.limit));
      // Requests of a configured window before the rule was seen were sent in this window too, and so was what
      // is underway, with all it counts (a batch's items, and itself); Remaining already counts this request.
      const before = synthetic ? Number(Atomics.load(s, SLOT.SENT)) : 0;
      const underway = this.#costInFlight(cost) - (rule.remaining === null ? 0 : cost);
      Atomics.store(s, SLOT.SENT, BigInt(before + underway));
      Atomics.store(s, SLOT.SYNTHETIC, 0n);
      Atomics.store(s, SLOT.EXHAUSTED, status === 429 && headers.has("retry-after") ? 1n : 0n);
      this.#startEvenPace(receivedAt);
      return;
    }
    if (status === 429 && headers.has("retry-after")) Atomics.store(s, SLOT.EXHAUSTED, 1n);
    if (rule.remaining !== null) {
      // The instance's own count: it includes this request but not the others still in flight.
      Atomics.store(s, SLOT.BUDGET, BigInt(rule.remaining));
      Atomics.store(s, SLOT.SENT, BigInt(this.#costInFlight(cost) - cost));
    }
  }

  /** What the requests underway count, at least `cost`: the answered request is one of them. */
  #costInFlight(cost: number): number {
    return Math.max(cost, Number(Atomics.load(this.slots, SLOT.COST_IN_FLIGHT)));
  }

  /**
   * Claims a start time for one request that counts `cost` against the rule (a Batch API request counts its
   * items and itself) and returns how long to wait for it (0: go now). `retry: true` means the window's budget is spent:
   * wait, then call `schedule` again (the next window is unknown until a response shows it).
   */
  schedule(now: number, cost = 1): { waitMs: number; retry: boolean } {
    const s = this.slots;
    this.#configuredWindow(now);
    if (Atomics.load(s, SLOT.WINDOW) === 0n) return { waitMs: 0, retry: false };
    const resetAt = Number(Atomics.load(s, SLOT.RESET_AT));
    if (now >= resetAt) return this.#probeNewWindow(now, resetAt);
    for (;;) {
      const left = this.#left();
      // A request costlier than a whole window's share (a large batch under a tiny budget) could never fit: it
      // takes what the window has left instead of waiting for ever.
      const need = cost <= left + Number(Atomics.load(s, SLOT.SENT)) ? cost : Math.max(1, left);
      const next = Atomics.load(s, SLOT.NEXT_AT);
      const at = Math.max(now, Number(next));
      if (left < need || at >= resetAt || Atomics.load(s, SLOT.EXHAUSTED) === 1n) {
        Atomics.add(s, SLOT.PACED, 1n);
        return { waitMs: resetAt - now + AFTER_RESET_MS, retry: true };
      }
      if (at > now && this.#bursts(now, resetAt, need)) return { waitMs: 0, retry: false };
      // The budget left is spread over the time from this slot to the reset.
      const interval = ((resetAt - at) / left) * need;
      if (Atomics.compareExchange(s, SLOT.NEXT_AT, next, BigInt(Math.ceil(at + interval))) !== next) continue;
      Atomics.add(s, SLOT.SENT, BigInt(need));
      if (at > now) Atomics.add(s, SLOT.PACED, 1n);
      return { waitMs: at - now, retry: false };
    }
  }

  /**
   * While a table catches up (or a backfill runs) on this host, a request that would wait for its even slot goes
   * at once when the window can spare it (`burstAllowance`); it then counts against the budget as any other, so
   * the even pace of the rest of the window follows what is left. False: it takes its even slot.
   */
  #bursts(now: number, resetAt: number, need: number): boolean {
    const s = this.slots;
    if (Atomics.load(s, SLOT.BURSTING) <= 0n) return false;
    for (;;) {
      const sent = Atomics.load(s, SLOT.SENT);
      const allowance = burstAllowance({
        left: this.#left(Number(sent)),
        evenBudget: Number(Atomics.load(s, SLOT.EVEN_BUDGET)),
        startAt: Number(Atomics.load(s, SLOT.START_AT)),
        resetAt,
        now,
        reserve: this.burstReserve,
      });
      if (allowance < need) return false;
      if (Atomics.compareExchange(s, SLOT.SENT, sent, sent + BigInt(need)) === sent) return true;
    }
  }

  /**
   * The known window has ended and no response has shown the next one yet: one request goes and learns it; the
   * others wait for its answer (another may go after PROBE_MS, should it fail), instead of starting together in
   * a burst that every realm and every member of a group would fire at the same reset.
   */
  #probeNewWindow(now: number, resetAt: number): { waitMs: number; retry: boolean } {
    const s = this.slots;
    const next = Atomics.load(s, SLOT.NEXT_AT);
    const free = Number(next) <= resetAt || now >= Number(next);
    if (free && Atomics.compareExchange(s, SLOT.NEXT_AT, next, BigInt(now + PROBE_MS)) === next) {
      return { waitMs: 0, retry: false };
    }
    return { waitMs: PROBE_RETRY_MS, retry: true };
  }

  /**
   * A response without a rule after the known window ended: the rule no longer applies to this user (removed,
   * or it covers other APIs only), so its window is forgotten and requests go unpaced again (or paced by the
   * configured budget). Responses within the window may lack it (an endpoint the rule does not cover).
   */
  #ruleGone(receivedAt: number): void {
    const s = this.slots;
    const known = Atomics.load(s, SLOT.WINDOW);
    if (known === 0n || Atomics.load(s, SLOT.SYNTHETIC) === 1n) return;
    if (receivedAt < Number(Atomics.load(s, SLOT.RESET_AT))) return;
    Atomics.compareExchange(s, SLOT.WINDOW, known, 0n);
  }

  /** Sets the configured budget (`svc.http.requests.per.hour`); connectors that disagree get the smaller. */
  configure(perHour: number): void {
    const s = this.slots;
    for (;;) {
      const known = Atomics.load(s, SLOT.CONFIGURED);
      if (known !== 0n && known <= BigInt(perHour)) return;
      if (Atomics.compareExchange(s, SLOT.CONFIGURED, known, BigInt(perHour)) === known) return;
    }
  }

  /**
   * Sets the burst reserve (`svc.http.rate.limit.reserve`, 0..1): the share of what the rest of a window needs at
   * its even pace that a burst leaves unspent. Connectors that disagree get the larger (the more careful).
   */
  configureBurstReserve(share: number): void {
    const s = this.slots;
    const wanted = BigInt(Math.round(Math.min(1, Math.max(0, share)) * 1000) + 1);
    for (;;) {
      const known = Atomics.load(s, SLOT.BURST_RESERVE);
      if (known >= wanted) return;
      if (Atomics.compareExchange(s, SLOT.BURST_RESERVE, known, wanted) === known) return;
    }
  }

  /** The burst reserve in force (0..1). */
  get burstReserve(): number {
    const configured = Number(Atomics.load(this.slots, SLOT.BURST_RESERVE));
    return configured === 0 ? DEFAULT_BURST_RESERVE : (configured - 1) / 1000;
  }

  /**
   * Counts `n` more catch-ups on this host (negative: fewer): tables whose sweeps have not yet reached their
   * high-water mark (a first sweep, a backlog, a backfill). While any runs, requests may burst (`schedule`).
   */
  registerCatchUps(n: number): void {
    Atomics.add(this.slots, SLOT.BURSTING, BigInt(n));
  }

  /** The worker group's member count: this process takes `1 / members` of the budget. */
  setMembers(members: number): void {
    Atomics.store(this.slots, SLOT.MEMBERS, BigInt(Math.max(1, Math.floor(members))));
  }

  /** Counts `n` more polled tables on this host (negative: fewer); the scheduler shares the budget among them. */
  registerTables(n: number): void {
    Atomics.add(this.slots, SLOT.TABLES, BigInt(n));
  }

  /** Tables polled against this host by every task of the process. */
  get tables(): number {
    return Math.max(0, Number(Atomics.load(this.slots, SLOT.TABLES)));
  }

  /**
   * Requests per second the window can still afford (its budget left, less the reserve, over the time left), or
   * null when no budget is known (no rule seen, none configured) or the known window has ended.
   */
  pollRate(now: number): number | null {
    const s = this.slots;
    this.#configuredWindow(now);
    if (Atomics.load(s, SLOT.WINDOW) === 0n) return null;
    const resetAt = Number(Atomics.load(s, SLOT.RESET_AT));
    if (now >= resetAt) return null;
    if (Atomics.load(s, SLOT.EXHAUSTED) === 1n) return 0;
    return Math.max(0, this.#left()) / Math.max(1, resetAt - now) * 1000;
  }

  /** This process's share of the window's budget not yet sent (`sent`: the count to take), less the reserve. */
  #left(sent = Number(Atomics.load(this.slots, SLOT.SENT))): number {
    const s = this.slots;
    const configured = Number(Atomics.load(s, SLOT.CONFIGURED));
    const members = Math.max(1, Number(Atomics.load(s, SLOT.MEMBERS)));
    const limit = Number(Atomics.load(s, SLOT.LIMIT));
    const budget = Number(Atomics.load(s, SLOT.BUDGET));
    // The configured budget caps the rule's (a budget that was already spent down keeps its own count).
    const capped = configured > 0 ? Math.min(budget, configured - (limit - budget)) : budget;
    const share = Math.floor(capped / members);
    const reserve = reserveOf(Math.floor((configured > 0 ? Math.min(limit, configured) : limit) / members));
    return share - sent - reserve;
  }

  /** The window's even pace starts here: the budget left now is spread to its reset (`burstAllowance`). */
  #startEvenPace(now: number): void {
    Atomics.store(this.slots, SLOT.START_AT, BigInt(now));
    Atomics.store(this.slots, SLOT.EVEN_BUDGET, BigInt(Math.max(0, this.#left())));
  }

  /** Without a rule, a configured budget makes windows of its own: an hour each, from the first request. */
  #configuredWindow(now: number): void {
    const s = this.slots;
    const configured = Atomics.load(s, SLOT.CONFIGURED);
    if (configured === 0n) return;
    const known = Atomics.load(s, SLOT.WINDOW);
    if (
      known !== 0n && (Atomics.load(s, SLOT.SYNTHETIC) !== 1n || now < Number(Atomics.load(s, SLOT.RESET_AT)))
    ) {
      return;
    }
    const resetAt = now + CONFIGURED_WINDOW_MS;
    if (Atomics.compareExchange(s, SLOT.WINDOW, known, BigInt(Math.ceil(resetAt / 1000))) !== known) return;
    Atomics.store(s, SLOT.SYNTHETIC, 1n);
    Atomics.store(s, SLOT.LIMIT, configured);
    Atomics.store(s, SLOT.BUDGET, configured);
    Atomics.store(s, SLOT.RESET_AT, BigInt(resetAt));
    Atomics.store(s, SLOT.SENT, 0n);
    Atomics.store(s, SLOT.NEXT_AT, 0n);
    Atomics.store(s, SLOT.EXHAUSTED, 0n);
    this.#startEvenPace(now);
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
