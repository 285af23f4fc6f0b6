/**
 * What the rate-limit tests of the instance client build on: a pacer on a fresh shared host state, and the
 * headers an instance sends with a rate-limit rule (limit, reset, the response's date; optionally the rule's
 * id, what remains, a Retry-After).
 */
import { RatePacer } from "../../src/instance/rate_pacer.ts";
import { createSharedHostState, viewsOf } from "../../src/instance/shared_host_state.ts";

/** A pacer on a shared host state of its own. */
export function newPacer(): RatePacer {
  return new RatePacer(viewsOf(createSharedHostState(4)));
}

/** The optional headers of a rate-limited response. */
export interface RuleExtras {
  readonly rule?: string;
  readonly remaining?: number;
  readonly retryAfter?: number;
}

/** The headers of a response under a rule of `limit` requests per window ending at `resetSeconds`, sent at `dateMs`. */
export function ruleHeaders(
  limit: number,
  resetSeconds: number,
  dateMs: number,
  extras: RuleExtras = {},
): Headers {
  const h = new Headers({
    "x-ratelimit-limit": String(limit),
    "x-ratelimit-reset": String(resetSeconds),
    "date": new Date(dateMs).toUTCString(),
  });
  if (extras.rule !== undefined) h.set("x-ratelimit-rule", extras.rule);
  if (extras.remaining !== undefined) h.set("x-ratelimit-remaining", String(extras.remaining));
  if (extras.retryAfter !== undefined) h.set("retry-after", String(extras.retryAfter));
  return h;
}
