/** Responses that replace the real one when a fault fires, and the proxy's extra Date. */
import type { ActiveFaults, Fault } from "../faults.ts";
import { httpDate } from "../glide_time.ts";
import { type ApiResponse, bodyOf } from "../http/answer.ts";
import { errorBody, Errors } from "../http/responses.ts";
import { HTML_TYPE, htmlPage } from "../http/html_pages.ts";

/** What a proxy that adds its own Date does to the header: several comma-joined values. */
export function proxyDate(
  headers: Headers,
  fault: NonNullable<ActiveFaults["doubleDate"]>,
  nowMs: number,
): void {
  const values = fault.garbled === "only"
    ? ["not a date", "Someday, 99 Foo 20xx 25:61:61 GMT"]
    : [headers.get("date"), httpDate(nowMs + fault.proxySkewSeconds * 1000)];
  if (fault.garbled === "first") values.unshift("not a date");
  headers.set("date", values.filter((v) => v !== null).join(", "));
}

export function faultResponse(fault: Fault, headers: Headers, nowMs: number): ApiResponse | undefined {
  switch (fault.kind) {
    case "rate_limit": {
      const retryAfter = fault.retryAfterSeconds ?? 10;
      headers.set("retry-after", String(retryAfter));
      headers.set("x-ratelimit-limit", String(fault.limitPerHour ?? 100));
      headers.set("x-ratelimit-reset", String(Math.floor(nowMs / 1000) + retryAfter));
      headers.set("x-ratelimit-rule", fault.ruleSysId ?? "0b6c2f1e1b2330103a5b7c1bdc4bcb51");
      return { status: 429, headers, body: bodyOf(errorBody(...Errors.rateLimited)) };
    }
    case "busy":
      return { status: 429, headers, body: bodyOf(errorBody("Too Many Requests", null)) };
    case "status":
      return {
        status: fault.status,
        headers,
        body: bodyOf(errorBody(fault.message ?? statusMessage(fault.status), fault.detail ?? null)),
      };
    case "accepted":
      headers.delete("content-type");
      return { status: 202, headers };
    case "html_page":
      headers.set("content-type", HTML_TYPE);
      return { status: 200, headers, body: bodyOf(htmlPage(fault.page ?? "hibernating")) };
    case "unauthorized":
      return { status: 401, headers, body: bodyOf(errorBody(...Errors.notAuthenticated)) };
    case "maintenance_page":
      headers.set("content-type", "text/html;charset=UTF-8");
      return { status: fault.status ?? 503, headers, body: bodyOf(MAINTENANCE_PAGE) };
    default:
      return undefined;
  }
}

/** What a platform shows while an instance is upgraded: a page for people, nothing a client can parse. */
const MAINTENANCE_PAGE = "<!DOCTYPE html><html><head><title>Instance Unavailable</title></head><body>" +
  "<h1>Your instance is being upgraded</h1><p>This instance is temporarily unavailable for scheduled " +
  "maintenance. Please try again later.</p></body></html>";

function statusMessage(status: number): string {
  return {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
  }[
    status
  ] ?? `HTTP ${status}`;
}
