/**
 * A rate-limit rule (sys_rate_limit_rules, table-api.md §4.2): each user may make `requests` API requests per
 * window. Every response to a user the rule covers carries `X-RateLimit-Limit` (the window's budget),
 * `X-RateLimit-Reset` (UNIX second the window ends) and `X-RateLimit-Rule`; a request over the budget gets 429 with
 * `Retry-After` and the instance's error body. No `X-RateLimit-Remaining`: the instance does not document one.
 *
 * The instance's windows are hours; here the window is configurable so tests can cross several in seconds. Windows
 * are aligned to the instance clock (multiples of the window since the epoch). Denied requests are not counted.
 */
import { errorBody } from "./http/responses.ts";
import { type ApiResponse, bodyOf } from "./routes/request.ts";

export interface RateLimitRuleSpec {
  /** Requests each user may make per window. */
  requests: number;
  /** Window length in seconds. Default 3600 (the instance's hour). */
  windowSeconds?: number;
  /** sys_id of the rule, sent as X-RateLimit-Rule. Default a fixed id. */
  ruleSysId?: string;
}

export class RateLimitRule {
  readonly requests: number;
  readonly windowSeconds: number;
  readonly ruleSysId: string;
  private window = -1;
  private readonly used = new Map<string, number>();

  constructor(spec: RateLimitRuleSpec) {
    if (!Number.isInteger(spec.requests) || spec.requests < 1) {
      throw new RangeError(`rate limit requests must be a positive integer, got ${spec.requests}`);
    }
    this.requests = spec.requests;
    this.windowSeconds = spec.windowSeconds ?? 3600;
    if (!Number.isInteger(this.windowSeconds) || this.windowSeconds < 1) {
      throw new RangeError(
        `rate limit window must be a positive number of seconds, got ${spec.windowSeconds}`,
      );
    }
    this.ruleSysId = spec.ruleSysId ?? "5f2c6e4a1b7330103a5b7c1bdc4bcb0e";
  }

  /**
   * Counts one request of `user` at instance time `nowMs` and sets the rule's headers. Returns the 429 response
   * when the user's budget for the window is spent, otherwise undefined (go on serving the request).
   */
  admit(user: string, nowMs: number, headers: Headers): ApiResponse | undefined {
    const nowSeconds = Math.floor(nowMs / 1000);
    const window = Math.floor(nowSeconds / this.windowSeconds);
    if (window !== this.window) {
      this.window = window;
      this.used.clear();
    }
    const reset = (window + 1) * this.windowSeconds;
    headers.set("x-ratelimit-limit", String(this.requests));
    headers.set("x-ratelimit-reset", String(reset));
    headers.set("x-ratelimit-rule", this.ruleSysId);
    const used = this.used.get(user) ?? 0;
    if (used < this.requests) {
      this.used.set(user, used + 1);
      return undefined;
    }
    headers.set("retry-after", String(Math.max(1, reset - nowSeconds)));
    const detail =
      `Rate limit of ${this.requests} requests per ${this.windowSeconds} seconds for Table API exceeded`;
    return { status: 429, headers, body: bodyOf(errorBody("Rate limit exceeded", detail)) };
  }
}
