/**
 * The bytes of page bodies a source task holds at once, across its tables (and the ranges of a parallel
 * backfill). A table holds its page's body from the request until the page's last slice of records is queued
 * (result_slices.ts); with one poller per table, five tables held five 10 MB bodies at once, about half of the
 * task's live memory during a five-table backfill. A page is requested only once the bodies held plus the
 * size expected of it (its table's last page, or a guess from its row limit before the first) fit the budget;
 * when no page is held a request always goes, so a page larger than the budget is read alone, never refused.
 *
 * Pages of tables waiting for the budget are requested later, not lost: the driver drains the pages held,
 * which frees the budget. With the default budget and pages of 5000 rows of 2 KB, two pages are held at once.
 */

/** Bytes of page bodies a task holds at once by default. */
const PAGE_BUDGET_BYTES = 32 * 1024 * 1024;
/** What a row is taken to weigh before a table's first page showed it (an incident row is about 2 KB). */
const GUESSED_ROW_BYTES = 4096;

/** One page's share of the budget, from its request until its records are queued. */
export interface PageTicket {
  /** The body was read: the share becomes its real size. */
  settle(bytes: number): void;
  /** The page is done with (its records queued, or the request failed). Idempotent. */
  release(): void;
}

export class PageBudget {
  #held = 0;
  #pages = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly maxBytes: number = PAGE_BUDGET_BYTES) {
    if (!(maxBytes >= 1)) throw new RangeError(`page budget must be at least 1 byte, got ${maxBytes}`);
  }

  /** Bytes of the pages held now (their real sizes once read, their expected sizes before). */
  get heldBytes(): number {
    return this.#held;
  }

  /**
   * The expected size of a page of `limit` rows of a table whose pages are not known yet: rows of a few KB
   * (GUESSED_ROW_BYTES), at most half the budget. So the first pages of a parallel backfill's ranges go out
   * together when they are small, while large first pages still go two at a time.
   */
  unknownPageBytes(limit: number): number {
    return Math.min(Math.ceil(this.maxBytes / 2), Math.max(1, limit) * GUESSED_ROW_BYTES);
  }

  /** Waits until a page of about `expectedBytes` fits (or none is held), then holds its share. */
  async acquire(expectedBytes: number, signal?: AbortSignal): Promise<PageTicket> {
    while (this.#pages > 0 && this.#held + expectedBytes > this.maxBytes) {
      signal?.throwIfAborted();
      const { promise, resolve } = Promise.withResolvers<void>();
      this.#waiting.push(resolve);
      const onAbort = () => resolve();
      signal?.addEventListener("abort", onAbort, { once: true });
      await promise;
      signal?.removeEventListener("abort", onAbort);
    }
    signal?.throwIfAborted();
    let share = expectedBytes;
    let released = false;
    this.#held += share;
    this.#pages++;
    return {
      settle: (bytes) => {
        if (released) return;
        this.#held += bytes - share;
        share = bytes;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#held -= share;
        this.#pages--;
        // Every waiter checks again; those that still do not fit wait for the next release.
        for (const wake of this.#waiting.splice(0)) wake();
      },
    };
  }
}
