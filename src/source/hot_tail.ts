/**
 * The tail read: after a sweep that found changes, one page of the rows changed after its high-water mark, each
 * sent ahead of the cursor at the version it has now (row_handler.ts), the cursor left where it is.
 *
 * A sweep reads up to the instance clock minus the safety lag. A row changed more often than that lag (a hot
 * row) is always newer than the mark when a sweep reads, so no sweep ever reaches it: it waits until it stops
 * changing. The tail sends it at its present version after every sweep; the next sweep that reaches it in cursor
 * order finds that version already sent (the dedup cache suppresses it) and moves the cursor over it as usual,
 * or finds a newer version and sends that. Offsets stay what the cursor rule makes them: a tail row carries the
 * cursor's offset, so a restart reads it again rather than losing rows before it.
 *
 * Only a busy table pays for it: the tail is read after a sweep that sent records, or while the last tail read
 * found rows; an idle table's poll stays one request. Under deletion capture a guard holds back the rows whose
 * keys have a deletion not read yet (deletes/unread_deletions.ts).
 */
import type { HighWaterMark } from "./instance_time.ts";
import type { KeysetQuery } from "./keyset_query.ts";
import type { PageReader } from "./page_reader.ts";
import type { RowHandler, RowPosition } from "./row_handler.ts";
import type { TableRow } from "../instance/mod.ts";
import { rawValueOf } from "./display_value.ts";

export interface HotTailOptions {
  readonly query: KeysetQuery;
  readonly pages: PageReader;
  readonly rows: RowHandler;
  readonly position: RowPosition;
  /** The keys that must not be sent ahead (deletion capture: a deletion of theirs not read yet). */
  readonly guard?: (sysIds: readonly string[], signal: AbortSignal) => Promise<ReadonlySet<string>>;
  readonly signal: AbortSignal;
}

export class HotTail {
  /** The last tail read found rows: the table is still busy after its mark. */
  #found = false;

  constructor(private readonly o: HotTailOptions) {}

  /** Whether a tail read follows a sweep that sent `emitted` records. */
  wanted(emitted: number): boolean {
    return (emitted > 0 || this.#found) && this.o.position.cursor() !== null;
  }

  /** Reads one page of the rows changed after `mark` and sends them ahead; returns the records queued. */
  async read(mark: HighWaterMark): Promise<number> {
    const { page, extractedAt, done } = await this.o.pages.read({
      query: this.o.query.tail(mark.text),
      count: false,
    });
    try {
      const handled = await this.o.rows.handlePage(
        this.o.guard ? await this.#guarded(page.slices) : page.slices,
        extractedAt,
        this.o.position,
        () => false,
        true,
      );
      this.#found = handled.rows > 0;
      return handled.emitted;
    } finally {
      done();
    }
  }

  /** The tail's rows (one page) without those whose keys must wait. */
  async #guarded(slices: Iterable<TableRow[]>): Promise<TableRow[][]> {
    const id = this.o.rows.sysIdField;
    const key = (row: TableRow) => String(rawValueOf(row[id]));
    const rows = [...slices].flat();
    const held = await this.o.guard!(rows.map(key), this.o.signal);
    return [rows.filter((r) => !held.has(key(r)))];
  }
}
