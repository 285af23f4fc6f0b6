/**
 * A rate-limit rule (sys_rate_limit_rules, instance-limits.md §4): each user may make `requests` API requests per
 * window (the instance's is an hour). Every answer to a user the rule covers, 200 or 429, carries
 * `X-RateLimit-Limit` (the window's budget), `X-RateLimit-Reset` (epoch second the window ends) and
 * `X-RateLimit-Rule` (the rule's sys_id); no `X-RateLimit-Remaining`, the instance sends none. Over the budget: 429
 * with `Retry-After` and the instance's error body. Denied requests are not counted.
 *
 * Counting lags as on the instance: each node counts a user's requests itself and commits its counts every
 * `commitIntervalMs` (30 s); a node sees the committed counts plus its own uncommitted ones (or the committed ones
 * only: `countsOwnRequests: false`), so the budget overshoots and then every node denies at once after a commit:
 * 429s come in bursts. The budget is
 * the user's, shared with every other tool using that user: `otherIntegration` spends part of it. Windows and
 * commits are aligned to the instance clock (multiples of their length since the epoch), so a test can cross them
 * with `clock.advance`.
 */

export interface RateLimitRuleSpec {
  /** Requests each user may make per window. */
  requests: number;
  /** Window length in seconds. Default 3600 (the instance's hour). */
  windowSeconds?: number;
  /** sys_id of the rule, sent as X-RateLimit-Rule. Default a fixed id. */
  ruleSysId?: string;
  /** How often (instance-time ms) each node commits its counts. Default 30000. */
  commitIntervalMs?: number;
  /**
   * A node adds its own uncommitted count to the committed ones. Default true (one node counts exactly); false:
   * a node checks the committed counts only, so even one node lets the budget overshoot until the next commit.
   */
  countsOwnRequests?: boolean;
  /** Another integration using the same users' budget: requests it makes as each window starts, and per second. */
  otherIntegration?: { requestsAtWindowStart?: number; requestsPerSecond?: number };
}

/** The rule's answer to one request: its headers, and why it is denied when it is. */
export interface RateLimitVerdict {
  headers: Array<[string, string]>;
  denied?: { retryAfterSeconds: number; detail: string };
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${what} must be a positive integer, got ${value}`);
  }
  return value;
}

export class RateLimitRule {
  readonly requests: number;
  readonly windowSeconds: number;
  readonly ruleSysId: string;
  readonly commitIntervalMs: number;
  readonly countsOwnRequests: boolean;
  readonly #otherAtStart: number;
  readonly #otherPerSecond: number;
  #window = -1;
  #commit = -1;
  #committed = new Map<string, number>();
  /** Per node: counts not committed yet. */
  #pending: Array<Map<string, number>> = [];

  constructor(spec: RateLimitRuleSpec) {
    this.requests = positiveInteger(spec.requests, "rate limit requests");
    this.windowSeconds = positiveInteger(spec.windowSeconds ?? 3600, "rate limit window (seconds)");
    this.commitIntervalMs = positiveInteger(
      spec.commitIntervalMs ?? 30_000,
      "rate limit commit interval (ms)",
    );
    this.countsOwnRequests = spec.countsOwnRequests ?? true;
    this.ruleSysId = spec.ruleSysId ?? "5f2c6e4a1b7330103a5b7c1bdc4bcb0e";
    this.#otherAtStart = spec.otherIntegration?.requestsAtWindowStart ?? 0;
    this.#otherPerSecond = spec.otherIntegration?.requestsPerSecond ?? 0;
    if (!(this.#otherAtStart >= 0) || !(this.#otherPerSecond >= 0)) {
      throw new RangeError("rate limit otherIntegration counts must be non-negative");
    }
  }

  /** Counts one request of `user` on `node` at instance time `nowMs` and says whether it may run. */
  admit(user: string, nowMs: number, node = 0): RateLimitVerdict {
    const windowMs = this.windowSeconds * 1000;
    const window = Math.floor(nowMs / windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#committed.clear();
      this.#pending = [];
    }
    this.#commitDue(nowMs);
    const reset = (window + 1) * this.windowSeconds;
    const headers: Array<[string, string]> = [
      ["x-ratelimit-limit", String(this.requests)],
      ["x-ratelimit-reset", String(reset)],
      ["x-ratelimit-rule", this.ruleSysId],
    ];
    const pending = (this.#pending[node] ??= new Map());
    const other = Math.floor(
      this.#otherAtStart + (this.#otherPerSecond * (nowMs - window * windowMs)) / 1000,
    );
    const own = this.countsOwnRequests ? pending.get(user) ?? 0 : 0;
    const seen = (this.#committed.get(user) ?? 0) + own + other;
    if (seen < this.requests) {
      pending.set(user, (pending.get(user) ?? 0) + 1);
      return { headers };
    }
    const per = this.windowSeconds === 3600 ? "hour" : `${this.windowSeconds} seconds`;
    return {
      headers,
      denied: {
        retryAfterSeconds: Math.max(1, reset - Math.floor(nowMs / 1000)),
        detail: `Rate limit of ${this.requests} requests per ${per} for Table API exceeded`,
      },
    };
  }

  /** The nodes commit their counts at every multiple of the interval passed since the last commit. */
  #commitDue(nowMs: number): void {
    const commit = Math.floor(nowMs / this.commitIntervalMs);
    if (commit === this.#commit) return;
    this.#commit = commit;
    for (const pending of this.#pending) {
      for (const [user, n] of pending ?? []) this.#committed.set(user, (this.#committed.get(user) ?? 0) + n);
      pending?.clear();
    }
  }
}
