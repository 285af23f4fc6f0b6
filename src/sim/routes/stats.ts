/**
 * GET /api/now/stats/<table>: the Aggregate API, count only (`sysparm_count=true`, `sysparm_query`). Like the
 * instance, the count is taken before access control: rows the `acl_hide` fault hides are counted. Without
 * `sysparm_count=true` the result has no count. `sysparm_min_fields` is answered too (stats_min.ts); the other
 * aggregates are not simulated.
 */
import { compileQuery } from "../query/compile.ts";
import { executeQuery } from "../query/execute.ts";
import { parseEncodedQuery } from "../query/parser.ts";
import type { RowSource } from "../store/row_source.ts";
import { type ApiRequest, type ApiResponse, bodyOf, flag } from "./request.ts";
import { minOfFields } from "./stats_min.ts";

export function countRows(req: ApiRequest, source: RowSource): ApiResponse {
  const { params, state, headers } = req;
  const compiled = compileQuery(parseEncodedQuery(params.get("sysparm_query") ?? ""), source, {
    db: state.db,
    invalidQueryReturnsNoRows: state.settings.invalidQueryReturnsNoRows,
    nowSeconds: state.clock.nowSeconds(),
    timeZone: req.viewer.timeZone,
    userSysId: req.principal.sysId,
  });
  const stats: Record<string, string | Record<string, string>> = {};
  const minFields = params.get("sysparm_min_fields");
  if (minFields) {
    const page = executeQuery(source, compiled, { offset: 0, limit: Infinity, needTotal: true });
    state.counters.rowsScanned += page.scanned;
    stats.min = minOfFields(source, page.rows, minFields);
  }
  if (flag(params, "sysparm_count")) {
    const page = executeQuery(source, compiled, { offset: 0, limit: 0, needTotal: true });
    state.counters.rowsScanned += page.scanned;
    req.entry.rowsScanned = page.scanned;
    stats.count = String(page.total);
  }
  return { status: 200, headers, body: bodyOf(JSON.stringify({ result: { stats } })) };
}
