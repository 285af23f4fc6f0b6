/** Route keys: which API a request addresses (the key fault rules, counters and the journal use). */
const BATCH_PATH = /^\/api\/now\/v1\/batch\/?$/;
const TABLE_PATH = /^\/api\/now\/(?:(v1|v2)\/)?table\/([^/]+)(?:\/([^/]+))?\/?$/;
const STATS_PATH = /^\/api\/now\/(?:(v1)\/)?stats\/([^/]+)\/?$/;

export interface RouteMatch {
  key: string;
  kind: "table" | "stats" | "oauth" | "batch" | "unknown";
  version?: string;
  table?: string;
  sysId?: string;
}

export function matchRoute(method: string, path: string): RouteMatch {
  if (path === "/oauth_token.do") return { key: `${method} /oauth_token.do`, kind: "oauth" };
  if (BATCH_PATH.test(path)) return { key: `${method} /api/now/batch`, kind: "batch" };
  const stats = STATS_PATH.exec(path);
  if (stats) {
    const table = decodeURIComponent(stats[2]);
    return { key: `${method} /api/now/stats/${table}`, kind: "stats", version: stats[1], table };
  }
  const m = TABLE_PATH.exec(path);
  if (!m) return { key: `${method} (unknown)`, kind: "unknown" };
  const table = decodeURIComponent(m[2]);
  const sysId = m[3] === undefined ? undefined : decodeURIComponent(m[3]);
  return {
    key: `${method} /api/now/table/${table}${sysId === undefined ? "" : "/{sys_id}"}`,
    kind: "table",
    version: m[1],
    table,
    sysId,
  };
}
