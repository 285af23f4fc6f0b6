/**
 * What an instance's refusal of a write means, from its status and its own words. The instance answers 403 for
 * three different things: a business rule that aborted the write, a data policy that found mandatory fields
 * empty, and access control. An operator must tell a bad record (the first two) from a missing role (the
 * third), and a dead letter queue consumer must be able to route them; so each gets its own class, with the
 * rule's name or the mandatory fields in the message.
 *
 * Refusals that will pass by themselves (rate limits, server errors, HTML pages, a quota-cancelled update) are
 * not record errors: the task retries them. `retriableClassOf` names them for the writes-by-class metric.
 */
import { HTML_PAGE_MESSAGE, InstanceHtmlPageError, InstanceRetriableError } from "../instance/mod.ts";
import type { ErrorClassification } from "./record_error.ts";

/** The classes a write can end in besides a record error's: success, and the retriable refusals. */
export type RetriableWriteClass = "rate_limited" | "server_error" | "not_api" | "quota_cancelled";
export type WriteClass = "ok" | ErrorClassification | RetriableWriteClass;

export interface Refusal {
  classification: ErrorClassification;
  /** What the message says besides the instance's words: the rule's name or the mandatory fields. */
  explanation: string | null;
}

const ABORTED = /aborted by Business Rule '([^'^]*)(?:\^([^']*))?'/;
const DATA_POLICY = /Data Policy Exception/;
const MANDATORY = /mandatory:\s*([^\n"]*)/;
const QUOTA = /Transaction cancelled: maximum execution time exceeded/;

/** Refines a record-condemning status by the instance's words (`error.message: error.detail`). */
export function refusalOf(
  status: number,
  classification: ErrorClassification,
  instanceMessage: string,
): Refusal {
  if (status !== 403) return { classification, explanation: null };
  const aborted = instanceMessage.match(ABORTED);
  if (aborted) {
    return {
      classification: "business_rule_abort",
      explanation: `business rule "${aborted[1].trim()}" aborted it`,
    };
  }
  if (DATA_POLICY.test(instanceMessage)) {
    const mandatory = instanceMessage.match(MANDATORY)?.[1].trim();
    return {
      classification: "data_policy",
      explanation: mandatory ? `a data policy makes mandatory: ${mandatory}` : "a data policy refused it",
    };
  }
  return { classification: "acl_denied", explanation: null };
}

/** True when an ambiguous create's or a retriable failure's reason is the transaction quota's cancellation. */
export function isQuotaCancelled(error: unknown): boolean {
  return error instanceof Error && QUOTA.test(error.message);
}

/** The class of a failure the task will retry, for the writes-by-class metric. */
export function retriableClassOf(error: unknown): RetriableWriteClass {
  if (
    error instanceof InstanceHtmlPageError ||
    (error instanceof Error && error.message.includes(HTML_PAGE_MESSAGE))
  ) {
    return "not_api";
  }
  if (isQuotaCancelled(error)) return "quota_cancelled";
  if (error instanceof InstanceRetriableError && error.status === 429) return "rate_limited";
  return "server_error";
}
