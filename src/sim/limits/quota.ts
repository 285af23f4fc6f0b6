/**
 * Transaction quotas (instance-limits.md §1): a request still running when its quota ("REST Table API request
 * timeout", 60 s) runs out is cancelled. The instance appends `"error":{…},"status":"failure"}` to whatever body
 * it had sent: HTTP 200, a cut payload. Where the cut falls is not documented, so both shapes are offered: inside
 * a record (invalid JSON) or after complete rows (valid JSON with a partial result). A request that waited in the
 * semaphore queue for the whole quota never runs: 500 with the error body.
 */
import { errorBody, Errors } from "../http/responses.ts";

/** Where a cancelled list is cut: inside the next record, or after the last complete one. */
export type QuotaShape = "cut_record" | "complete_rows";

/** The quota of one running request: `performance.now()` instant it ends, and how its body is cut. */
export interface Quota {
  deadline: number;
  shape: QuotaShape;
}

/** The instance's error object for a cancelled transaction, as a whole body. */
export const CANCELLED_BODY = errorBody(...Errors.quotaCancelled);

/** What the instance appends to a cancelled transaction's body: the error object without its opening brace. */
export const CANCELLED_TAIL = CANCELLED_BODY.slice(1);

export function quotaSpent(quota: Quota | undefined): boolean {
  return quota !== undefined && performance.now() >= quota.deadline;
}

/**
 * The end of a list body cancelled before row `index`: `nextRow` renders that row (absent past the last row).
 * `cut_record` sends half of it, then the tail; `complete_rows` closes the array, then the tail.
 */
export function cancelledListEnding(shape: QuotaShape, index: number, nextRow?: () => string): string {
  if (shape === "complete_rows") return "]," + CANCELLED_TAIL;
  if (!nextRow) return CANCELLED_TAIL;
  const row = nextRow();
  return (index > 0 ? "," : "") + row.slice(0, Math.max(1, Math.floor(row.length / 2))) + CANCELLED_TAIL;
}
