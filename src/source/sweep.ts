/**
 * One sweep of a table: pages from a start instant up to a high-water mark fixed when the sweep began. A
 * streaming sweep starts `svc.source.overlap.seconds` before the table's cursor (rows already emitted are
 * suppressed by the dedup cache); before the first row it starts at `svc.table.<alias>.start.timestamp`.
 *
 * The instance applies `sysparm_limit` before access control drops the rows the user may not read, so a short or
 * empty page proves nothing by itself. What proves a window `(start, end]` covered is its count taken before
 * access control (`X-Total-Count`): a page that asked for the count and got `count <= limit` saw every row of its
 * window. The rules:
 *
 * - the first page of a sweep asks for the count (same request, no extra one);
 * - a full page continues at once after its last row, without a count; the count of the rest is then known as
 *   the last count minus the full pages since (rows updated away meanwhile only make it an over-estimate; a row
 *   committed late into the window is what the overlap is for);
 * - a short page whose window is proven covered ends the window: the sweep, or the probe of a split window,
 *   after which the next probe is twice as wide;
 * - a short page that is not proven covered but holds rows continues after its last row without a count (the
 *   estimate loses the rows it returned, at least that many counted rows are behind); an empty page that the
 *   estimate does not prove covered is asked again with a count;
 * - an empty page whose count exceeds the limit (a run of hidden rows at least a page long) halves its window
 *   (page_window.ts): by time, then by sys id range inside one second, and probes the first half.
 *
 * Every extra request either proves a window covered and moves past it, returns rows and moves past them, or
 * halves the probed window; so a hidden run of R rows costs at most about log2(seconds of the window) + 128
 * halvings to find the first covered window and then about 2·R/limit requests. The cursor only ever moves over
 * readable rows: skipping a window needs its own consistent count. Without hidden rows a sweep needs no extra
 * request (and saves the trailing empty page when the count says the last full page was the end).
 */
import { type Cursor, overlapStart } from "./cursor.ts";
import { parseGlideDateTime } from "./glide_timestamp.ts";
import type { HighWaterMark } from "./instance_time.ts";
import type { KeysetQuery } from "./keyset_query.ts";
import {
  hintInside,
  type PageEnd,
  type PageStart,
  splitWindow,
  startAfter,
  widerEnd,
} from "./page_window.ts";

/** A window a sweep proved covered: its end, and its count when one was taken. */
export interface CoveredWindow {
  readonly end: PageEnd;
  readonly rows: number | null;
}

/**
 * The hints of the next sweep: the previous sweep's covered windows, consecutive ones merged while their counts
 * add up to at most `limit` (halving tends to find windows much smaller than a page).
 */
export function hintsFrom(windows: readonly CoveredWindow[], limit: number): PageEnd[] {
  const hints: PageEnd[] = [];
  let sum = 0;
  windows.forEach((w, i) => {
    sum += w.rows ?? limit;
    const next = windows[i + 1];
    if (next === undefined || sum + (next.rows ?? limit) > limit) {
      hints.push(w.end);
      sum = 0;
    }
  });
  return hints;
}

/** Where a sweep starts: the overlap before the cursor, or the start timestamp when nothing was read yet. */
export function sweepStart(cursor: Cursor | null, startTimestamp: string, overlapSeconds: number): string {
  return cursor === null ? startTimestamp : overlapStart(cursor, overlapSeconds);
}

/** The next page to request. */
export interface PageRequest {
  readonly query: string;
  /** Ask for `X-Total-Count` of the page's window. */
  readonly count: boolean;
}

/** What a page returned. */
export interface PageOutcome {
  /** Rows in the page (readable ones; access control dropped the others). */
  readonly rows: number;
  readonly limit: number;
  /** The cursor of the page's last row with a usable cursor, or null. */
  readonly last: Cursor | null;
  /** The count of the page's window before access control, when asked for and sent. */
  readonly total: number | null;
}

export class Sweep {
  readonly #high: PageEnd;
  #start: PageStart;
  #end: PageEnd;
  #count = true;
  /** Rows (before access control) left in `(#start, #end]`, from the last count; null when unknown. */
  #remaining: number | null = null;
  #pages = 0;
  #counted = 0;
  #splits = 0;
  /** The windows this sweep proved covered by probes, in order, with their counts: hints for the next sweep. */
  readonly #coveredWindows: CoveredWindow[] = [];
  /** The count of the window being probed, from its first counted page. */
  #probeRows: number | null = null;

  /**
   * `hints`: window ends to try before halving, from the table's previous sweep (hintsFrom). A hidden run behind
   * the cursor is met again by every sweep (the overlap starts before the cursor); trying last sweep's window
   * ends first finds covered windows again without halving from scratch.
   */
  constructor(
    readonly from: string,
    readonly highWater: HighWaterMark,
    private readonly hints: readonly PageEnd[] = [],
  ) {
    this.#start = { kind: "from", timestamp: from };
    this.#high = { kind: "through", timestamp: highWater.text };
    this.#end = this.#high;
  }

  /** True when the sweep cannot find anything: it starts after its high-water mark (no request needed). */
  get empty(): boolean {
    return parseGlideDateTime(this.from) > this.highWater.epochMs;
  }

  /** Pages requested so far. */
  get pages(): number {
    return this.#pages;
  }

  /** The windows this sweep proved covered by probes, with their counts (hints for the next sweep). */
  get coveredWindows(): readonly CoveredWindow[] {
    return this.#coveredWindows;
  }

  /** Pages that asked for a count, and windows halved: for the request trace. */
  get stats(): { pages: number; counted: number; splits: number } {
    return { pages: this.#pages, counted: this.#counted, splits: this.#splits };
  }

  /** Where the next page's window ends (inclusive): a row of that page beyond it changed after it was queried. */
  get end(): PageEnd {
    return this.#end;
  }

  /** The next page. */
  next(query: KeysetQuery): PageRequest {
    return { query: query.page(this.#start, this.#end), count: this.#count };
  }

  /** Moves past a page; returns whether the sweep goes on. */
  advance(page: PageOutcome): boolean {
    this.#pages++;
    const counted = this.#count && page.total !== null;
    if (this.#count) this.#counted++;
    if (counted) this.#remaining = page.total;
    if (counted && this.#probeRows === null) this.#probeRows = page.total;
    if (page.rows >= page.limit) {
      if (page.last === null) {
        throw new Error(
          "a full page without a single row with a usable cursor: the sweep cannot page past it",
        );
      }
      this.#start = { kind: "after", timestamp: page.last.timestamp, sysId: page.last.sysId };
      // A full page saw `limit` rows and none was hidden: exactly `limit` of the counted rows are behind us.
      if (this.#remaining !== null) this.#remaining -= page.limit;
      this.#count = false;
      return this.#remaining !== null && this.#remaining <= 0 ? this.#covered() : true;
    }
    if (this.#remaining !== null && this.#remaining <= page.limit) return this.#covered();
    if (this.#count && page.total === null) {
      // The instance sent no count (a proxy may strip it): hidden rows cannot be told from the end.
      return this.#covered();
    }
    if (page.last !== null) {
      // Not proven covered, but rows came: go on after them without a count (an empty page asks for one). At
      // least `rows` of the counted rows are behind, so the estimate stays an over-estimate.
      this.#start = { kind: "after", timestamp: page.last.timestamp, sysId: page.last.sysId };
      if (this.#remaining !== null) this.#remaining -= page.rows;
      this.#count = false;
      return true;
    }
    this.#count = true;
    this.#remaining = null;
    if (!counted) return true; // the estimate did not prove it: ask the same window again, with a count
    this.#end = hintInside(this.hints, this.#start, this.#end) ?? splitWindow(this.#start, this.#end);
    this.#probeRows = null;
    this.#splits++;
    return true;
  }

  /** The window `(#start, #end]` was proven covered: the sweep ends, or the next, wider probe follows. */
  #covered(): boolean {
    if (this.#end === this.#high) return false;
    this.#coveredWindows.push({ end: this.#end, rows: this.#probeRows });
    this.#probeRows = null;
    const start = startAfter(this.#end);
    this.#end = hintInside(this.hints, start, this.#high) ?? widerEnd(this.#start, this.#end, this.#high);
    this.#start = start;
    this.#count = true;
    this.#remaining = null;
    return true;
  }
}
