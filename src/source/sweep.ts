/**
 * One sweep of a table: pages from a start instant up to a high-water mark fixed when the sweep began. A full page
 * continues at once after its last row (keyset); a short or empty page ends the sweep. A streaming sweep starts
 * `svc.source.overlap.seconds` before the table's cursor (rows already emitted are suppressed by the dedup cache);
 * before the first row it starts at `svc.table.<alias>.start.timestamp`.
 */
import { type Cursor, overlapStart } from "./cursor.ts";
import { parseGlideDateTime } from "./glide_timestamp.ts";
import type { HighWaterMark } from "./instance_time.ts";
import type { KeysetQuery, PageStart } from "./keyset_query.ts";

/** Where a sweep starts: the overlap before the cursor, or the start timestamp when nothing was read yet. */
export function sweepStart(cursor: Cursor | null, startTimestamp: string, overlapSeconds: number): string {
  return cursor === null ? startTimestamp : overlapStart(cursor, overlapSeconds);
}

export class Sweep {
  #next: PageStart;
  #pages = 0;

  constructor(readonly from: string, readonly highWater: HighWaterMark) {
    this.#next = { kind: "from", timestamp: from };
  }

  /** True when the sweep cannot find anything: it starts after its high-water mark (no request needed). */
  get empty(): boolean {
    return parseGlideDateTime(this.from) > this.highWater.epochMs;
  }

  get pages(): number {
    return this.#pages;
  }

  /** The query of the next page. */
  nextQuery(query: KeysetQuery): string {
    return query.page(this.#next, this.highWater.text);
  }

  /**
   * Moves past a page. `last` is the cursor of the page's last row (null when no row had a usable cursor);
   * returns whether the sweep goes on (the page was full).
   */
  advance(rowCount: number, limit: number, last: Cursor | null): boolean {
    this.#pages++;
    if (rowCount < limit) return false;
    if (last === null) {
      throw new Error("a full page without a single row with a usable cursor: the sweep cannot page past it");
    }
    this.#next = { kind: "after", timestamp: last.timestamp, sysId: last.sysId };
    return true;
  }
}
