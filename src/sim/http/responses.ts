/** Response helpers: the instance's headers and its error envelope. */
import { httpDate } from "../glide_time.ts";

export const JSON_TYPE = "application/json;charset=UTF-8";

/** Headers every API response carries (as captured from a real instance, minus cookies). */
export function baseHeaders(instanceNowMs: number, loggedIn: boolean): Headers {
  return new Headers({
    "content-type": JSON_TYPE,
    "date": httpDate(instanceNowMs),
    "server": "ServiceNow",
    "x-is-logged-in": String(loggedIn),
    "pragma": "no-store,no-cache",
    "cache-control": "no-cache,no-store,must-revalidate,max-age=-1",
    "expires": "0",
  });
}

/** `{"error":{"message":…,"detail":…},"status":"failure"}`, the instance's error body. */
export function errorBody(message: string, detail: string | null): string {
  return JSON.stringify({ error: { message, detail }, status: "failure" });
}

/** Standard messages, kept in one place so every route answers the same way. */
export const Errors = {
  notAuthenticated: ["User Not Authenticated", "Required to provide Auth information"],
  invalidTable: (table: string): [string, null] => [`Invalid table ${table}`, null],
  noRecord: ["No Record found", "Record doesn't exist or ACL restricts the record retrieval"],
  noRecordsV1: [
    "No Record found",
    "Records matching query not found. Check query parameter or offset parameter",
  ],
  noResource: ["Requested URI does not represent any resource", null],
  rateLimited: ["Rate limit exceeded", "Rate limit of 100 requests per hour for Table API exceeded"],
  quotaCancelled: [
    "Transaction cancelled: maximum execution time exceeded",
    "Transaction cancelled: maximum execution time exceeded Check logs for error trace or enable glide.rest.debug property to verify REST request processing",
  ],
} as const;
