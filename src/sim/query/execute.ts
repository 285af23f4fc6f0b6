/**
 * Runs a compiled query over a source: picks candidate rows (a slice of the (sys_updated_on, sys_id) index
 * when every OR group bounds the timestamp, else all rows), tests them, orders, counts and pages.
 *
 * When the requested order is the index order and no total count is needed, the scan stops as soon as the
 * page is full, so keyset paging over a million rows costs about one page of work.
 */
import type { RowSource, UpdatedOnIndex } from "../store/row_source.ts";
import type { CompiledQuery, TimeRange } from "./compile.ts";

export interface PageRequest {
  offset: number;
  limit: number;
  /** False for sysparm_no_count=true: the total is not computed (and the scan may stop early). */
  needTotal: boolean;
}

export interface PageResult {
  /** Rows of the page, in order (before access-control filtering). */
  rows: number[];
  /** Rows matching the query, or -1 when not computed. */
  total: number;
  /** Rows the predicate was evaluated on. */
  scanned: number;
}

type IndexOrder = "asc" | "desc" | undefined;

/** Whether ORDERBY asks for exactly the index order (timestamp, optionally then sys_id, same direction). */
function indexOrder(query: CompiledQuery, index: UpdatedOnIndex | undefined): IndexOrder {
  if (!index) return undefined;
  const keys = query.orderBy;
  if (keys.length === 0 || keys.length > 2) return undefined;
  if (keys[0].field !== index.field) return undefined;
  if (
    keys.length === 2 && (keys[1].field !== index.sysIdField || keys[1].descending !== keys[0].descending)
  ) {
    return undefined;
  }
  return keys[0].descending ? "desc" : "asc";
}

/** Index position intervals [from, to) covering every group's range, merged and sorted. */
function candidateIntervals(
  query: CompiledQuery,
  index: UpdatedOnIndex,
): Array<[number, number]> | undefined {
  if (query.groups.some((g) => !g.range)) return undefined;
  const intervals = query.groups.map((g) => positions(g.range!, index)).filter(([a, b]) => a < b);
  intervals.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [a, b] of intervals) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}

function positions(r: TimeRange, index: UpdatedOnIndex): [number, number] {
  const from = r.low === -Infinity ? 0 : r.lowInclusive ? index.lowerBound(r.low) : index.upperBound(r.low);
  const to = r.high === Infinity
    ? index.length
    : r.highInclusive
    ? index.upperBound(r.high)
    : index.lowerBound(r.high);
  return [from, to];
}

function* indexRows(
  index: UpdatedOnIndex,
  intervals: Array<[number, number]>,
  order: "asc" | "desc",
): Iterable<number> {
  if (order === "asc") {
    for (const [a, b] of intervals) for (let p = a; p < b; p++) yield index.at(p);
  } else {
    for (let i = intervals.length - 1; i >= 0; i--) {
      const [a, b] = intervals[i];
      for (let p = b - 1; p >= a; p--) yield index.at(p);
    }
  }
}

export function executeQuery(source: RowSource, query: CompiledQuery, page: PageRequest): PageResult {
  if (query.matchNothing) return { rows: [], total: 0, scanned: 0 };
  const index = source.updatedIndex;
  const order = indexOrder(query, index);
  const intervals = index ? candidateIntervals(query, index) : undefined;
  let candidates: Iterable<number>;
  let sorted = false;
  if (index && (order || intervals)) {
    candidates = indexRows(index, intervals ?? [[0, index.length]], order ?? "asc");
    sorted = order !== undefined || query.orderBy.length === 0;
  } else {
    candidates = source.liveRows();
    sorted = query.orderBy.length === 0;
  }
  const groups = query.groups;
  const test = groups.length === 1 ? groups[0].test : (row: number) => groups.some((g) => g.test(row));
  const end = page.offset + page.limit;
  const matches: number[] = [];
  let scanned = 0;
  for (const row of candidates) {
    scanned++;
    if (!test(row)) continue;
    matches.push(row);
    if (sorted && !page.needTotal && matches.length >= end) break;
  }
  if (!sorted) sortRows(matches, query);
  return { rows: matches.slice(page.offset, end), total: page.needTotal ? matches.length : -1, scanned };
}

function sortRows(rows: number[], query: CompiledQuery): void {
  const keys = query.orderBy.map((o) => {
    const values = new Map<number, number | string>();
    for (const row of rows) values.set(row, o.key(row));
    return { values, sign: o.descending ? -1 : 1 };
  });
  rows.sort((a, b) => {
    for (const k of keys) {
      const x = k.values.get(a)!, y = k.values.get(b)!;
      if (x !== y) return (x < y ? -1 : 1) * k.sign;
    }
    return a - b;
  });
}
