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
 * - an empty page whose count exceeds the limit (a run of hidden rows at least a page long) cuts its window
 *   (page_window.ts): by time, then by sys id range inside one second, where three quarters of a page's rows
 *   would end were the counted rows spread evenly, and probes the first part; after a probe proven covered that
 *   returned readable rows the sweep pages on up to its mark, after one that returned none the next probe is as
 *   wide as the covered one's count says holds three quarters of a page (at most 8 times as wide);
 * - when the sweep's very first page (from the table's start timestamp, no cursor yet) is empty with a count
 *   over the limit, the sweep first asks where the window's rows begin (`wantsEarliest`, answered by the
 *   Aggregate API's MIN of the timestamp field) and cuts from there, instead of from 1970.
 *
 * Every extra request either proves a window covered and moves past it, returns rows and moves past them, or
 * cuts the probed window; a hidden run of R rows costs about R / (0.75·limit) probes once the first covered
 * window is found, plus a probe for each cut that guessed wrong. The cursor only ever moves over readable rows:
 * skipping a window needs its own consistent count. Without hidden rows a sweep needs no extra request (and
 * saves the trailing empty page when the count says the last full page was the end).
 *
 * Each page also tells what it passed (`lastPassed`): rows before access control and readable rows, the
 * readable share a table's progress scales its counts by.
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

/** The share of a page a probe of hidden rows aims at: a little under a page, so its count proves it covered. */
const PROBE_TARGET = 0.75;
/** A probe after a covered window grows at most this much (a gap without rows). */
const MAX_GROWTH = 8;

/** Rows a page moved the sweep past: before access control (`raw`, partly estimated) and readable ones. */
export interface Passed {
  readonly raw: number;
  readonly readable: number;
}

/** A window a sweep proved covered: its end, and its count when one was taken. */
export interface CoveredWindow {
  readonly end: PageEnd;
  readonly rows: number | null;
}

/**
 * The hints of the next sweep: the previous sweep's covered windows, consecutive ones merged while their counts
 * add up to at most `limit` (cutting tends to find windows much smaller than a page).
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
  /** A small page is expected (an idle table's window query): it may share a Batch API request (poll_batching.ts). */
  readonly coalesce?: boolean;
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
  /** Readable rows the window being probed returned so far. */
  #probeReadable = 0;
  /** What the last page passed. */
  #passed: Passed = { raw: 0, readable: 0 };
  /** The count of the first page when it asked where the window's rows begin (wantsEarliest), else null. */
  #earliestCount: number | null = null;

  /**
   * `hints`: window ends to try before cutting, from the table's previous sweep (hintsFrom). A hidden run behind
   * the cursor is met again by every sweep (the overlap starts before the cursor); trying last sweep's window
   * ends first finds covered windows again without cutting from scratch.
   *
   * `findEarliest`: the sweep starts at the table's start timestamp with no row read yet, so a first page that is
   * empty while its count exceeds the limit asks where the rows begin (wantsEarliest) before cutting.
   */
  constructor(
    readonly from: string,
    readonly highWater: HighWaterMark,
    private readonly hints: readonly PageEnd[] = [],
    private readonly findEarliest = false,
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

  /** Pages that asked for a count, and windows cut: for the request trace. */
  get stats(): { pages: number; counted: number; splits: number } {
    return { pages: this.#pages, counted: this.#counted, splits: this.#splits };
  }

  /** What the last page passed (rows before access control, readable rows). */
  get lastPassed(): Passed {
    return this.#passed;
  }

  /** True when the caller must tell `earliest` where the window's rows begin before asking for the next page. */
  get wantsEarliest(): boolean {
    return this.#earliestCount !== null;
  }

  /** The window `(start, end]` the next page asks for (for an Aggregate API query over it). */
  get window(): { start: PageStart; end: PageEnd } {
    return { start: this.#start, end: this.#end };
  }

  /**
   * Where the window's rows begin before access control (the MIN of the timestamp field; null when unknown): the
   * sweep starts there, and probes the first part of what is left.
   */
  earliest(timestamp: string | null): void {
    const count = this.#earliestCount;
    if (count === null) return;
    this.#earliestCount = null;
    if (timestamp !== null && parseGlideDateTime(timestamp) > parseGlideDateTime(this.#start.timestamp)) {
      this.#start = { kind: "from", timestamp };
    }
    this.#cut(count, this.#pageLimit);
  }

  #pageLimit = 1;

  /** Where the next page's window ends (inclusive): a row of that page beyond it changed after it was queried. */
  get end(): PageEnd {
    return this.#end;
  }

  /** The next page. */
  next(query: KeysetQuery): PageRequest {
    return { query: query.page(this.#start, this.#end), count: this.#count };
  }

  /**
   * The request `advance` would lead to after a full page (`limit` rows) whose last row is at `last`, without
   * moving: null when that page would end the window (then there is nothing to ask ahead). For reading the next
   * page while this one is handled; whoever does compares it with `next` once the page was advanced over.
   */
  nextAfterFull(query: KeysetQuery, last: Cursor, limit: number, total: number | null): PageRequest | null {
    const remaining = this.#count && total !== null ? total : this.#remaining;
    if (remaining !== null && remaining - limit <= 0) return null;
    const start: PageStart = { kind: "after", timestamp: last.timestamp, sysId: last.sysId };
    return { query: query.page(start, this.#end), count: false };
  }

  /** Moves past a page; returns whether the sweep goes on. */
  advance(page: PageOutcome): boolean {
    this.#pages++;
    this.#pageLimit = page.limit;
    const counted = this.#count && page.total !== null;
    if (this.#count) this.#counted++;
    if (counted) this.#remaining = page.total;
    if (counted && this.#probeRows === null) this.#probeRows = page.total;
    this.#probeReadable += page.rows;
    this.#passed = { raw: 0, readable: page.rows };
    if (page.rows >= page.limit) {
      if (page.last === null) {
        throw new Error(
          "a full page without a single row with a usable cursor: the sweep cannot page past it",
        );
      }
      this.#start = { kind: "after", timestamp: page.last.timestamp, sysId: page.last.sysId };
      this.#passed = { raw: page.rows, readable: page.rows };
      // A full page saw `limit` rows and none was hidden: exactly `limit` of the counted rows are behind us.
      if (this.#remaining !== null) this.#remaining -= page.limit;
      this.#count = false;
      return this.#remaining !== null && this.#remaining <= 0 ? this.#covered() : true;
    }
    if (this.#remaining !== null && this.#remaining <= page.limit) {
      this.#passed = { raw: Math.max(page.rows, this.#remaining), readable: page.rows };
      return this.#covered();
    }
    if (this.#count && page.total === null) {
      // The instance sent no count (a proxy may strip it): hidden rows cannot be told from the end.
      this.#passed = { raw: page.rows, readable: page.rows };
      return this.#covered();
    }
    if (page.last !== null) {
      // Not proven covered, but rows came: go on after them without a count (an empty page asks for one). At
      // least `rows` of the counted rows are behind, so the estimate stays an over-estimate. The instance read
      // a page of rows before access control to find them.
      this.#start = { kind: "after", timestamp: page.last.timestamp, sysId: page.last.sysId };
      this.#passed = { raw: page.limit, readable: page.rows };
      if (this.#remaining !== null) this.#remaining -= page.rows;
      this.#count = false;
      return true;
    }
    this.#count = true;
    this.#remaining = null;
    if (!counted) return true; // the estimate did not prove it: ask the same window again, with a count
    if (this.findEarliest && this.#pages === 1 && this.#start.kind === "from") {
      this.#earliestCount = page.total!;
      return true;
    }
    this.#cut(page.total!, page.limit);
    return true;
  }

  /** Cuts the window, whose count is `count` (over `limit`), where a probe's worth of its rows would end. */
  #cut(count: number, limit: number): void {
    this.#end = hintInside(this.hints, this.#start, this.#end) ??
      splitWindow(this.#start, this.#end, (PROBE_TARGET * limit) / count);
    this.#probeRows = null;
    this.#probeReadable = 0;
    this.#splits++;
  }

  /** The window `(#start, #end]` was proven covered: the sweep ends, or the next, wider probe follows. */
  #covered(): boolean {
    if (this.#end === this.#high) return false;
    const rows = this.#probeRows;
    const readable = this.#probeReadable;
    this.#coveredWindows.push({ end: this.#end, rows });
    this.#probeRows = null;
    this.#probeReadable = 0;
    const start = startAfter(this.#end);
    // Readable rows again: back to paging up to the mark (a page that comes back empty cuts again). Else as wide
    // as the covered window's count says holds a probe's worth (twice as wide when it was not counted).
    const growth = rows === null
      ? 2
      : Math.min(MAX_GROWTH, (PROBE_TARGET * this.#pageLimit) / Math.max(1, rows));
    this.#end = hintInside(this.hints, start, this.#high) ??
      (readable > 0 ? this.#high : widerEnd(this.#start, this.#end, this.#high, growth));
    this.#start = start;
    this.#count = true;
    this.#remaining = null;
    return true;
  }
}
