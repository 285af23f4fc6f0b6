/**
 * The streaming sweep's next page, asked for while the last one is handled (the instance prepares and sends it
 * meanwhile) when the last one looks full (its end read before its slices: result_slices.ts's resultEnd). The
 * page read ahead is used only if the sweep, advanced over the last page, asks for that very page at the same page
 * size; a wrong guess costs a request, never a row.
 */
import type { SlicedListPage } from "../instance/mod.ts";
import type { Cursor } from "./cursor.ts";
import type { KeysetQuery } from "./keyset_query.ts";
import type { PageReader } from "./page_reader.ts";
import { readRowCursor } from "./row_cursor.ts";
import type { TableSettings } from "./settings.ts";
import type { PageRequest, Sweep } from "./sweep.ts";
import type { TableRow } from "../instance/mod.ts";

export type PageRead = ReturnType<PageReader["read"]>;

/** A page asked for ahead of its turn. */
export interface PageAhead {
  readonly request: PageRequest;
  /** The page size it asked for. */
  readonly limit: number;
  readonly page: PageRead;
  /** Ends the request if it is still going, and gives its share of the page budget back. */
  cancel(): void;
}

/** Two page requests that ask for the same page. */
export function sameRequest(a: PageRequest, b: PageRequest): boolean {
  return a.query === b.query && a.count === b.count;
}

export class ReadAhead {
  /** The page read ahead and not used yet, or null. */
  #ahead: PageAhead | null = null;

  constructor(
    private readonly table: TableSettings,
    private readonly query: KeysetQuery,
    private readonly pages: PageReader,
    private readonly signal: AbortSignal,
    /** A row as the table's display value setting hands it on. */
    private readonly shaped: (row: TableRow) => TableRow,
  ) {}

  /** The page `request` names: the one read ahead when it is that page (at page size `limit`), else read now. */
  next(request: PageRequest, limit: number): PageRead {
    const ahead = this.#ahead;
    this.#ahead = null;
    if (ahead && ahead.limit === limit && sameRequest(ahead.request, request)) return ahead.page;
    ahead?.cancel();
    return this.pages.read(request);
  }

  /** Keeps `ahead` (from `start`) for the next `next`. */
  keep(ahead: PageAhead | null): void {
    this.#ahead?.cancel();
    this.#ahead = ahead;
  }

  /** Cancels the page kept, if any. */
  cancel(): void {
    this.keep(null);
  }

  /**
   * Starts reading the page that follows `page` if `page` is full (as far as its end tells before it is parsed),
   * or null. The caller keeps it (`keep`) once the sweep advanced and goes on, or cancels it.
   */
  start(
    sweep: Sweep,
    page: SlicedListPage,
    limit: number,
    inWindow: (cursor: Cursor) => boolean,
  ): PageAhead | null {
    const end = page.end();
    if (end === null || end.rowsAtMost < limit || end.last === null) return null;
    const t = this.table;
    const rc = readRowCursor(this.shaped(end.last), t.timestampField, t.sysIdField);
    // A last row beyond the page's window changed while the page was read: the sweep goes on from another row.
    if (!rc.ok || !inWindow(rc.cursor)) return null;
    const request = sweep.nextAfterFull(this.query, rc.cursor, limit, page.total);
    if (request === null) return null;
    const abort = new AbortController();
    const read = this.pages.read(request, AbortSignal.any([this.signal, abort.signal]));
    // Not awaited until used: a failure is seen by the step that uses it (as if the page were read then).
    read.catch(() => {});
    return {
      request,
      limit,
      page: read,
      cancel: () => {
        abort.abort();
        read.then((r) => r.done(), () => {});
      },
    };
  }
}
