/**
 * The Aggregate API (`GET /api/now/stats/<table>`): a row count (`sysparm_count=true`, answered as
 * `{"result":{"stats":{"count":"<n>"}}}`) and the smallest value of a field (`sysparm_min_fields=<field>`,
 * answered as `{"result":{"stats":{"min":{"<field>":"<value>"}}}}`). Both are taken before access control (like
 * X-Total-Count), so a count is an estimate of what the user will read. Calling it needs a role the integration
 * user may lack: 401/403 (and 400/404 where the API is not offered) mean "not available", not a failure of the
 * caller.
 */
import type { InstanceHttpClient } from "./http_client.ts";
import { HTML_PAGE_MESSAGE, isHtmlPage } from "./html_page.ts";

export type CountResult =
  | { readonly count: number }
  | { readonly unavailable: string };

/** The smallest value (null when no row matched), or why the API did not say. */
export type MinResult =
  | { readonly min: string | null }
  | { readonly unavailable: string };

const TABLE_NAME = /^[a-z][a-z0-9_]*$/;

/** The `stats` object of an Aggregate API answer, or why there is none. */
async function stats(
  http: InstanceHttpClient,
  table: string,
  query: Record<string, string>,
  signal?: AbortSignal,
): Promise<{ stats: Record<string, unknown> } | { unavailable: string }> {
  if (!TABLE_NAME.test(table)) throw new RangeError(`not a table name: "${table}"`);
  const path = `/api/now/stats/${table}`;
  const response = await http.request({ method: "GET", path, query, signal });
  if (response.status !== 200) return { unavailable: `GET ${path} answered HTTP ${response.status}` };
  if (isHtmlPage(response.headers.get("content-type"), response.body)) {
    return { unavailable: HTML_PAGE_MESSAGE };
  }
  try {
    const stats = JSON.parse(new TextDecoder().decode(response.body))?.result?.stats;
    if (stats !== null && typeof stats === "object") return { stats };
  } catch {
    // fall through: not the Aggregate API's answer
  }
  return { unavailable: `GET ${path} did not answer {"result":{"stats":{...}}}` };
}

export async function aggregateCount(
  http: InstanceHttpClient,
  table: string,
  query: string,
  signal?: AbortSignal,
): Promise<CountResult> {
  const answer = await stats(http, table, { sysparm_count: "true", sysparm_query: query }, signal);
  if ("unavailable" in answer) return answer;
  const count = answer.stats.count;
  const n = typeof count === "string" && /^\d+$/.test(count) ? Number(count) : count;
  if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) return { count: n };
  return { unavailable: `GET /api/now/stats/${table} answered no count` };
}

/** `MIN(field)` over the rows `query` matches (before access control); an empty value means no row. */
export async function aggregateMin(
  http: InstanceHttpClient,
  table: string,
  field: string,
  query: string,
  signal?: AbortSignal,
): Promise<MinResult> {
  const answer = await stats(http, table, { sysparm_min_fields: field, sysparm_query: query }, signal);
  if ("unavailable" in answer) return answer;
  const value = (answer.stats.min as Record<string, unknown> | undefined)?.[field];
  if (value === "") return { min: null };
  if (typeof value === "string") return { min: value };
  return { unavailable: `GET /api/now/stats/${table} answered no min of ${field}` };
}
