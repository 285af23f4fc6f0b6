/**
 * The `sysparm_query` of one page: the base query with the cursor predicates ANDed into every `^NQ` group (a
 * condition appended after `^NQ` would only constrain the last group), ordered by the cursor fields.
 *
 * - a page starts at an instant, inclusive: `ts>=L` (the sweep's start: start timestamp, or the committed cursor
 *   minus the overlap; or the second after a window proven covered);
 * - or strictly after a cursor key: `ts>=T^ts>T^ORid>I`, i.e. `ts > T OR (ts = T AND id > I)`, so a same-second
 *   bucket larger than a page is drained by sys id;
 * - a page ends at the end of a second, inclusive: `ts<=H` (the sweep's high-water mark, or a split point);
 * - or at a cursor key inside a second, inclusive: `ts<=T^ts<T^ORid<=I` (a split of a same-second window);
 * - a range of a parallel backfill adds its sys id bounds: `id>A^id<=B` (parallel_backfill.ts).
 */
import { condition, EncodedQuery, keysetAfter, keysetAtOrBefore } from "../instance/mod.ts";
import type { PageEnd, PageStart } from "./page_window.ts";
import type { IdRange } from "./parallel_backfill.ts";

export class KeysetQuery {
  readonly #base: EncodedQuery;
  /** The sys id bounds of a backfill range, ANDed into every page; empty for the whole table. */
  readonly #ids: string[] = [];

  /** `ids`: only the rows of this sys id range (a range of a parallel backfill). Default: every row. */
  constructor(
    baseQuery: string,
    private readonly timestampField: string,
    private readonly sysIdField: string,
    ids: IdRange | null = null,
  ) {
    // Parsed once per table: splitting into NQ groups is not per-page work.
    this.#base = EncodedQuery.parse(baseQuery);
    if (ids?.after != null) this.#ids.push(condition(sysIdField, ">", ids.after));
    if (ids?.atMost != null) this.#ids.push(condition(sysIdField, "<=", ids.atMost));
  }

  /** The query text of the page of the window `(start, end]`. */
  page(start: PageStart, end: PageEnd): string {
    return this.#window(start, end).orderBy(this.timestampField).orderBy(this.sysIdField).toString();
  }

  /** The rows changed after `timestamp` (a sweep's high-water mark), in cursor order: the table's tail. */
  tail(timestamp: string): string {
    return this.#base.and(condition(this.timestampField, ">", timestamp), ...this.#ids)
      .orderBy(this.timestampField).orderBy(this.sysIdField).toString();
  }

  /** The rows of the window `(start, end]`, unordered (for the Aggregate API). */
  filter(start: PageStart, end: PageEnd): string {
    return this.#window(start, end).toString();
  }

  #window(start: PageStart, end: PageEnd): EncodedQuery {
    const ts = this.timestampField, id = this.sysIdField;
    const lower = start.kind === "from"
      ? condition(ts, ">=", start.timestamp)
      : keysetAfter(ts, start.timestamp, id, start.sysId);
    const upper = end.kind === "through"
      ? condition(ts, "<=", end.timestamp)
      : keysetAtOrBefore(ts, end.timestamp, id, end.sysId);
    return this.#base.and(lower, upper, ...this.#ids);
  }
}
