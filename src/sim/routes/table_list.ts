/** GET /api/now/table/<table>: query, order, count, page, render, with the list-specific faults. */
import { compileQuery } from "../query/compile.ts";
import { executeQuery } from "../query/execute.ts";
import { parseEncodedQuery } from "../query/parser.ts";
import { linkHeader } from "../http/link_header.ts";
import { errorBody, Errors } from "../http/responses.ts";
import { parseFieldList, RowRenderer } from "../http/serialize.ts";
import type { RowSource } from "../store/row_source.ts";
import { type ApiRequest, type ApiResponse, bodyOf, displayMode, flag, linkBase } from "./request.ts";
import { streamRows } from "./row_stream.ts";

/** Parses a non-negative integer parameter; undefined when absent, NaN when malformed. */
function intParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
}

/**
 * Without sysparm_query, `field=value` parameters filter the list; choice fields accept their labels
 * (`state=Closed`), as the instance accepts display values there.
 */
function queryFromPairs(params: URLSearchParams, source: RowSource): string {
  const terms: string[] = [];
  for (const [name, value] of params) {
    if (name.startsWith("sysparm_")) continue;
    const def = source.field(name);
    if (!def) continue;
    const byLabel = def.choices?.find(([, label]) => label.toLowerCase() === value.toLowerCase());
    terms.push(`${name}=${(byLabel ? byLabel[0] : value).replaceAll("^", "^^")}`);
  }
  return terms.join("^");
}

export function listRows(req: ApiRequest, source: RowSource): ApiResponse {
  const { params, state, headers } = req;
  const limitParam = intParam(params, "sysparm_limit");
  const offsetParam = intParam(params, "sysparm_offset");
  if (Number.isNaN(limitParam) || (limitParam ?? 0) < 0) {
    return {
      status: 400,
      headers,
      body: bodyOf(errorBody("Invalid value for sysparm_limit", params.get("sysparm_limit"))),
    };
  }
  if (Number.isNaN(offsetParam)) {
    return {
      status: 400,
      headers,
      body: bodyOf(errorBody("Invalid value for sysparm_offset", params.get("sysparm_offset"))),
    };
  }
  const limit = limitParam ?? state.settings.defaultLimit;
  const offset = Math.max(0, offsetParam ?? 0);
  const queryText = params.get("sysparm_query") ?? queryFromPairs(params, source);
  const compiled = compileQuery(parseEncodedQuery(queryText), source, {
    db: state.db,
    invalidQueryReturnsNoRows: state.settings.invalidQueryReturnsNoRows,
    nowSeconds: state.clock.nowSeconds(),
    timeZone: req.viewer.timeZone,
    userSysId: req.principal.sysId,
  });
  const needTotal = !flag(params, "sysparm_no_count");
  const page = executeQuery(source, compiled, { offset, limit, needTotal });
  // Access control runs after the limit: hidden rows still count in X-Total-Count and shorten the page.
  const hidden = req.faults.hidden;
  const idReader = source.reader(source.idField)!;
  const rows = hidden ? page.rows.filter((r) => !hidden(idReader.get(r))) : page.rows;

  state.counters.rowsScanned += page.scanned;
  state.counters.rowsReturned += rows.length;
  req.entry.rowsScanned = page.scanned;
  req.entry.rowsReturned = rows.length;

  if (req.version === "v1" && page.rows.length === 0) {
    return { status: 404, headers, body: bodyOf(errorBody(...Errors.noRecordsV1)) };
  }
  if (page.total >= 0) headers.set("x-total-count", String(page.total));
  if (!flag(params, "sysparm_suppress_pagination_header")) {
    headers.set("link", linkHeader(req.url, req.origin, offset, limit, page.total, page.rows.length));
  }
  const renderer = new RowRenderer(state.db, source, {
    display: displayMode(params),
    excludeReferenceLink: flag(params, "sysparm_exclude_reference_link"),
    fields: parseFieldList(params.get("sysparm_fields")),
    linkBase: linkBase(req),
    viewer: req.viewer,
  });
  return { status: 200, headers, body: streamRows(rows, renderer, req) };
}
