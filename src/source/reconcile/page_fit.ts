/**
 * Whether a reconcile page fits before the table's next poll: the last page's time, with a margin, must be left.
 * The estimate halves for every `halfLifeMs` without a page: a page slower than the poll interval (a loaded machine,
 * a slow instance) would otherwise never fit again and starve the pass for good (seen: a pass over 1,000,000 rows
 * stopped after 49,267 while other work loaded the machine). So a pass goes on, at worst delaying a poll by about
 * one page now and then.
 */

/** A page is asked for only when this multiple of the estimate is left before the next poll. */
const MARGIN = 1.5;
/** Time without a page over which the estimate halves. */
const HALF_LIFE_MS = 30_000;

export class PageFit {
  #pageMs = 0;
  #at = 0;

  constructor(private readonly halfLifeMs = HALF_LIFE_MS) {}

  /** True when a page fits in `remainingMs` at `now` (steady ms). */
  fits(remainingMs: number, now: number): boolean {
    return remainingMs >= this.estimateMs(now) * MARGIN;
  }

  /** The last page's time, halved for every half-life since it ended. */
  estimateMs(now: number): number {
    return this.#pageMs * 0.5 ** (Math.max(0, now - this.#at) / this.halfLifeMs);
  }

  /** A page took `ms` and ended at `now`. */
  observed(ms: number, now: number): void {
    this.#pageMs = ms;
    this.#at = now;
  }
}
