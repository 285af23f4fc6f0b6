/**
 * Fault injection, per route and deterministic under the simulator's random seed.
 *
 * A rule matches requests by route key (e.g. "GET /api/now/table/incident", "GET /api/now/table/incident/{sys_id}",
 * "POST /oauth_token.do"; the API version is not part of the key), method and table. Faults that replace the
 * response (rate_limit, busy, status, accepted, unauthorized, html_page, maintenance_page) take the first matching
 * rule; the others combine.
 */
import { hashString, Random } from "./random.ts";
import type { QuotaShape } from "./limits/quota.ts";
import type { HtmlPage } from "./http/html_pages.ts";

export type Fault =
  /** 429 with Retry-After and X-RateLimit-Limit/-Reset/-Rule: a rate-limit rule denied the request. */
  | { kind: "rate_limit"; retryAfterSeconds?: number; limitPerHour?: number; ruleSysId?: string }
  /** 429 without rate-limit headers: the API_INT semaphore queue is full. */
  | { kind: "busy" }
  /** Any error status (5xx, 403, …) with the instance's error envelope. */
  | { kind: "status"; status: number; message?: string; detail?: string | null }
  /** 202 with an empty body: the session already has too many waiting transactions. */
  | { kind: "accepted" }
  /** 200 with an HTML page instead of the API: a hibernating instance, or a login/SSO page (http/html_pages.ts). */
  | { kind: "html_page"; page?: HtmlPage }
  /** 401 "User Not Authenticated" even with valid credentials (e.g. a revoked token). */
  | { kind: "unauthorized" }
  /**
   * An HTML maintenance page (text/html) with `status` (default 503), as a load balancer or the platform shows
   * while the instance is upgraded or down: no JSON at all, whatever the route.
   */
  | { kind: "maintenance_page"; status?: number }
  /** Delay before the response starts (`ms`) and while streaming rows (`perRowMs` per row). */
  | { kind: "latency"; ms?: number; perRowMs?: number }
  /** The connection is dropped after `afterBytes` bytes of the body (default 1024); headers said 200. */
  | { kind: "reset"; afterBytes?: number }
  /**
   * The 60 s transaction quota cancels a streaming list: 200, the JSON array cut off after `afterRows` rows
   * (default: half the page), then the error object. With a `shape`, the body ends as limits/quota.ts describes
   * (`cut_record`: inside the next record, invalid JSON; `complete_rows`: `],"error":{…},"status":"failure"}`).
   */
  | { kind: "quota_cancel"; afterRows?: number; shape?: QuotaShape }
  /** The body is gzip-compressed with Content-Encoding: gzip. */
  | { kind: "gzip" }
  /** The JSON body is padded with whitespace to at least `bytes` bytes (still valid JSON). */
  | { kind: "oversized"; bytes: number }
  /**
   * Rows hidden by access control: counted in X-Total-Count but removed after the limit is applied.
   * Hides `percent` % of rows (chosen by a hash of the sys_id) and/or the listed sys_ids.
   */
  | { kind: "acl_hide"; percent?: number; sysIds?: string[] }
  /**
   * A proxy in front of the instance adds its own `Date`: the header arrives with two comma-joined values, the
   * instance's then the proxy's (`proxySkewSeconds` ahead of the instance, default 0). `garbled: "first"` puts an
   * unparseable value before both; `garbled: "only"` leaves nothing but unparseable values (a broken proxy).
   */
  | { kind: "double_date"; proxySkewSeconds?: number; garbled?: "first" | "only" };

export interface FaultRule {
  fault: Fault;
  /** Route key to match exactly, or a pattern. Default: every route. */
  route?: string | RegExp;
  /** HTTP method to match (upper case). Default: any. */
  method?: string;
  /** Table to match. Default: any (also routes without a table). */
  table?: string;
  /** Chance that a matching request is affected, drawn from the seeded generator. Default 1. */
  probability?: number;
  /** Matching requests to let through before the rule starts firing. Default 0. */
  skip?: number;
  /** How many times the rule fires, after which it is spent. Default: unlimited. */
  times?: number;
}

export interface RequestTarget {
  route: string;
  method: string;
  table?: string;
}

/** The faults that apply to one request. */
export interface ActiveFaults {
  /** A fault that replaces the whole response. */
  replace?: Fault;
  latencyMs: number;
  perRowMs: number;
  resetAfterBytes?: number;
  quotaCancelAfterRows?: number | "half";
  quotaCancelShape?: QuotaShape;
  gzip: boolean;
  oversizedBytes?: number;
  /** A second (and maybe a garbled first) Date value, as a proxy would add. */
  doubleDate?: { proxySkewSeconds: number; garbled?: "first" | "only" };
  /** True for rows access control hides from this request. */
  hidden?: (sysId: string) => boolean;
  /** Kinds that fired, for the journal. */
  fired: string[];
}

const REPLACING = new Set([
  "rate_limit",
  "busy",
  "status",
  "accepted",
  "unauthorized",
  "html_page",
  "maintenance_page",
]);

interface InstalledRule {
  id: string;
  rule: FaultRule;
  random: Random;
  seen: number;
  fired: number;
}

export class FaultRegistry {
  #rules: InstalledRule[] = [];
  #nextId = 1;
  #seed: number;

  constructor(seed: number) {
    this.#seed = seed;
  }

  /** Installs a rule and returns its id (for `remove`). */
  add(rule: FaultRule): string {
    validateFault(rule.fault);
    const n = this.#nextId++;
    const id = `fault-${n}`;
    this.#rules.push({ id, rule, random: new Random(this.#seed * 7919 + n), seen: 0, fired: 0 });
    return id;
  }

  remove(id: string): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((r) => r.id !== id);
    return this.#rules.length !== before;
  }

  clear(): void {
    this.#rules = [];
  }

  list(): Array<{ id: string; rule: FaultRule; fired: number }> {
    return this.#rules.map((r) => ({ id: r.id, rule: r.rule, fired: r.fired }));
  }

  /** Decides which faults apply to a request; counts matches and firings. */
  select(target: RequestTarget): ActiveFaults {
    const active: ActiveFaults = { latencyMs: 0, perRowMs: 0, gzip: false, fired: [] };
    const hiders: Array<(sysId: string) => boolean> = [];
    for (const installed of this.#rules) {
      const { rule } = installed;
      if (!matches(rule, target)) continue;
      installed.seen++;
      if (installed.seen <= (rule.skip ?? 0)) continue;
      if (installed.fired >= (rule.times ?? Infinity)) continue;
      if (rule.probability !== undefined && !installed.random.chance(rule.probability)) continue;
      const f = rule.fault;
      if (REPLACING.has(f.kind)) {
        if (active.replace) continue;
        active.replace = f;
      }
      installed.fired++;
      active.fired.push(f.kind);
      switch (f.kind) {
        case "latency":
          active.latencyMs += f.ms ?? 0;
          active.perRowMs += f.perRowMs ?? 0;
          break;
        case "reset":
          active.resetAfterBytes = f.afterBytes ?? 1024;
          break;
        case "quota_cancel":
          active.quotaCancelAfterRows = f.afterRows ?? "half";
          active.quotaCancelShape = f.shape;
          break;
        case "gzip":
          active.gzip = true;
          break;
        case "oversized":
          active.oversizedBytes = f.bytes;
          break;
        case "acl_hide":
          hiders.push(aclHider(f.percent ?? 0, f.sysIds ?? []));
          break;
        case "double_date":
          active.doubleDate = { proxySkewSeconds: f.proxySkewSeconds ?? 0, garbled: f.garbled };
          break;
      }
    }
    if (hiders.length) active.hidden = (sysId) => hiders.some((h) => h(sysId));
    return active;
  }
}

function matches(rule: FaultRule, target: RequestTarget): boolean {
  if (rule.method && rule.method.toUpperCase() !== target.method) return false;
  if (rule.table && rule.table !== target.table) return false;
  if (rule.route instanceof RegExp) return rule.route.test(target.route);
  if (typeof rule.route === "string") return rule.route === target.route;
  return true;
}

function aclHider(percent: number, sysIds: string[]): (sysId: string) => boolean {
  const listed = new Set(sysIds);
  return (sysId) => listed.has(sysId) || (percent > 0 && hashString(sysId) % 10000 < percent * 100);
}

function validateFault(f: Fault): void {
  if (f.kind === "status" && (f.status < 100 || f.status > 599)) {
    throw new RangeError(`bad status ${f.status}`);
  }
  if (f.kind === "maintenance_page" && f.status !== undefined && (f.status < 100 || f.status > 599)) {
    throw new RangeError(`bad status ${f.status}`);
  }
  if (f.kind === "oversized" && !(f.bytes > 0)) throw new RangeError("oversized.bytes must be positive");
  if (f.kind === "acl_hide" && f.percent !== undefined && (f.percent < 0 || f.percent > 100)) {
    throw new RangeError("acl_hide.percent must be within 0..100");
  }
}
