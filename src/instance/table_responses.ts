/**
 * What a table call's response means: the `result` of a 2xx of the expected shape, or the error its status or
 * body means (table_client.ts's header says which); the page count of `X-Total-Count`.
 */
import {
  AmbiguousRequestError,
  InstanceHttpError,
  InstanceRetriableError,
  type RequestLabel,
} from "./errors.ts";
import type { InstanceResponse } from "./http_client.ts";
import { HTML_PAGE_MESSAGE, isHtmlPage, refuseHtmlPage } from "./html_page.ts";
import { BrokenResultError } from "./result_slices.ts";
import { errorEnvelopeText, type TableRow } from "./table_rows.ts";

/** The slices, a body found broken half-way reported as `expectResult` reports a broken body. */
export function* retriableWhenBroken(
  slices: Iterable<TableRow[]>,
  response: InstanceResponse,
  path: string,
): Generator<TableRow[]> {
  try {
    yield* slices;
  } catch (error) {
    if (!(error instanceof BrokenResultError)) throw error;
    const reason = describeBadBody(response.status, new TextDecoder().decode(response.body));
    throw new InstanceRetriableError({ method: "GET", path }, response.status, response.attempts, reason);
  }
}

/** `X-Total-Count` as a count; null when absent or not a non-negative integer (a proxy may strip it). */
export function totalCountOf(header: string | null): number | null {
  const first = header?.split(",")[0].trim() ?? "";
  return /^\d+$/.test(first) ? Number(first) : null;
}

export function httpError(response: InstanceResponse, method: string, path: string): InstanceHttpError {
  const body = new TextDecoder().decode(response.body);
  return new InstanceHttpError({ method, path }, response.status, body, errorEnvelopeText(body));
}

/** The `result` of a 2xx response, of the expected shape. */
export function expectResult(
  response: InstanceResponse,
  method: string,
  path: string,
  shape: "array" | "object",
): unknown {
  if (response.status < 200 || response.status >= 300) throw httpError(response, method, path);
  const label: RequestLabel = { method, path };
  refuseHtmlPage(response, label);
  const body = new TextDecoder().decode(response.body);
  let result: unknown;
  try {
    result = JSON.parse(body).result;
  } catch {
    result = undefined;
  }
  const ok = shape === "array"
    ? Array.isArray(result)
    : result !== null && typeof result === "object" && !Array.isArray(result);
  if (ok) return result;
  const reason = describeBadBody(response.status, body);
  if (method === "POST") throw new AmbiguousRequestError(label, response.attempts, reason);
  throw new InstanceRetriableError(label, response.status, response.attempts, reason);
}

function describeBadBody(status: number, body: string): string {
  if (isHtmlPage(null, body)) return HTML_PAGE_MESSAGE;
  const cancelled = body.match(/Transaction cancelled[^"]*/);
  if (cancelled) return `the instance cut the response off: ${cancelled[0].slice(0, 200)}`;
  return `HTTP ${status} body is not the expected {"result": …} JSON (${body.length} bytes)`;
}
