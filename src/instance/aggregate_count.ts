/**
 * The Aggregate API's row count: `GET /api/now/stats/<table>?sysparm_count=true&sysparm_query=<q>` answers
 * `{"result":{"stats":{"count":"<n>"}}}`. The count is taken before access control (like X-Total-Count), so it is an
 * estimate of what the user will read. Calling it needs a role the integration user may lack: 401/403 (and 400/404
 * where the API is not offered) mean "not available", not a failure of the caller.
 */
import type { InstanceHttpClient } from "./http_client.ts";

export type CountResult =
  | { readonly count: number }
  | { readonly unavailable: string };

const TABLE_NAME = /^[a-z][a-z0-9_]*$/;

export async function aggregateCount(
  http: InstanceHttpClient,
  table: string,
  query: string,
  signal?: AbortSignal,
): Promise<CountResult> {
  if (!TABLE_NAME.test(table)) throw new RangeError(`not a table name: "${table}"`);
  const path = `/api/now/stats/${table}`;
  const response = await http.request({
    method: "GET",
    path,
    query: { sysparm_count: "true", sysparm_query: query },
    signal,
  });
  if (response.status !== 200) {
    return { unavailable: `GET ${path} answered HTTP ${response.status}` };
  }
  try {
    const count = JSON.parse(new TextDecoder().decode(response.body))?.result?.stats?.count;
    const n = typeof count === "string" && /^\d+$/.test(count) ? Number(count) : count;
    if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) return { count: n };
  } catch {
    // fall through: not the Aggregate API's answer
  }
  return { unavailable: `GET ${path} did not answer {"result":{"stats":{"count":...}}}` };
}
