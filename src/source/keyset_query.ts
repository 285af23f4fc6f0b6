/**
 * The `sysparm_query` of one page: the base query with the cursor predicates ANDed into every `^NQ` group (a
 * condition appended after `^NQ` would only constrain the last group), ordered by the cursor fields.
 *
 * - the first page of a sweep starts at an instant, inclusive: `ts>=L` (start timestamp, or the committed cursor
 *   minus the overlap);
 * - every later page continues strictly after the last row read: `ts>=T^ts>T^ORid>I`, i.e.
 *   `ts > T OR (ts = T AND id > I)`, so a same-second bucket larger than a page is drained by sys id;
 * - every page is bounded above by the sweep's high-water mark, inclusive: `ts<=H`.
 */
import { condition, EncodedQuery, keysetAfter } from "../instance/mod.ts";

/** Where a page starts. */
export type PageStart =
  | { readonly kind: "from"; readonly timestamp: string }
  | { readonly kind: "after"; readonly timestamp: string; readonly sysId: string };

export class KeysetQuery {
  readonly #base: EncodedQuery;

  constructor(
    baseQuery: string,
    private readonly timestampField: string,
    private readonly sysIdField: string,
  ) {
    // Parsed once per table: splitting into NQ groups is not per-page work.
    this.#base = EncodedQuery.parse(baseQuery);
  }

  /** The query text of a page starting at `start`, bounded by the high-water mark `highWater` (inclusive). */
  page(start: PageStart, highWater: string): string {
    const lower = start.kind === "from"
      ? condition(this.timestampField, ">=", start.timestamp)
      : keysetAfter(this.timestampField, start.timestamp, this.sysIdField, start.sysId);
    return this.#base
      .and(lower, condition(this.timestampField, "<=", highWater))
      .orderBy(this.timestampField)
      .orderBy(this.sysIdField)
      .toString();
  }
}
