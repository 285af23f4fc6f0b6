/**
 * What a table poller does with a page's rows: each row's cursor is read (row_cursor.ts) and checked against the
 * page's window and the dedup cache (dedup_cache.ts), the row becomes a record (record_builder.ts) at the position
 * it moves (the table's cursor, or a range's of a parallel backfill), and the records are queued a slice at a time
 * (record_queue.ts). Bad rows go through the framework's tolerance (`svc.source.bad.row.behavior`).
 */
import type { SourceOffset, SourceRecord } from "../connect/record.ts";
import type { SourceTaskContext } from "../connect/task_api.ts";
import type { TableRow } from "../instance/mod.ts";
import { BadRowError } from "./bad_row.ts";
import { compareCursors, type Cursor } from "./cursor.ts";
import { DedupCache } from "./dedup_cache.ts";
import { rawValueOf, toDisplayShape } from "./display_value.ts";
import type { OverlapLedger } from "./overlap_ledger.ts";
import type { RecordBuilder } from "./record_builder.ts";
import type { RecordQueue } from "./record_queue.ts";
import { readRowCursor } from "./row_cursor.ts";
import { FieldValueError } from "./schema_modes/mod.ts";
import type { SourceSettings, TableSettings } from "./settings.ts";

/** Where handled rows move a cursor: the table's, or a range's of a parallel backfill. */
export interface RowPosition {
  cursor(): Cursor | null;
  moveTo(cursor: Cursor): void;
  /** The offset of a record handled now. */
  offset(): SourceOffset;
}

export interface RowHandlerOptions {
  readonly table: TableSettings;
  readonly source: SourceSettings;
  readonly context: SourceTaskContext;
  /** Versions the committed offset says were already sent inside its overlap window: seed the dedup cache. */
  readonly sentInOverlap?: readonly string[];
  readonly ledger?: OverlapLedger;
  readonly records: Pick<RecordBuilder, "startPage" | "build">;
  readonly queue: RecordQueue;
  /** Turns a slice's records into the records to queue (deletion capture: audit rows to tombstones). */
  readonly expand?: (records: SourceRecord[]) => Promise<SourceRecord[]>;
  /** A row that came back changed past its page's window is sent ahead of the cursor. Default true. */
  readonly sendAhead?: boolean;
}

/** What a page's rows came to. */
export interface HandledPage {
  /** Rows the page held (readable ones: access control dropped the others). */
  readonly rows: number;
  /** The cursor of the last row inside the page's window, or null. */
  readonly last: Cursor | null;
  /** Records queued. */
  readonly emitted: number;
}

export class RowHandler {
  readonly #o: RowHandlerOptions;
  #dedup: DedupCache;
  readonly #keepRaw: ReadonlySet<string>;
  readonly #labels: Record<string, string>;
  /** The last batch put on the queue: one waits there while the next page is fetched; not more. */
  #delivered: Promise<void> = Promise.resolve();

  constructor(o: RowHandlerOptions, keepRaw: ReadonlySet<string>) {
    this.#o = o;
    this.#dedup = new DedupCache(o.source.dedupWindowRecords);
    for (const version of o.sentInOverlap ?? []) this.#dedup.add(version);
    this.#keepRaw = keepRaw;
    this.#labels = { table: o.table.table, alias: o.table.alias };
  }

  /** The table's sys id field. */
  get sysIdField(): string {
    return this.#o.table.sysIdField;
  }

  /** Forgets every version sent: the table is read again from an earlier point (time_backwards.ts). */
  forget(): void {
    this.#dedup = new DedupCache(this.#o.source.dedupWindowRecords);
  }

  /** A row as the table's display value setting hands it on (`true` keeps the cursor fields raw). */
  shaped(row: TableRow): TableRow {
    return this.#o.table.displayValue === "true" ? toDisplayShape(row, this.#keepRaw) : row;
  }

  /**
   * A page's rows a slice at a time (result_slices.ts): each slice's records are queued before the next slice is
   * parsed, so a page is never alive as every row and every record at once. The cursor moves row by row; a page
   * that fails half-way leaves its first slices queued, and the sweep asks for the same page again (the rows
   * re-read are at or before the cursor: the dedup cache suppresses them). `tail`: the rows are a table's tail,
   * after its sweep's high-water mark (hot_tail.ts): each is sent ahead, none moves the cursor.
   */
  async handlePage(
    slices: Iterable<TableRow[]>,
    extractedAt: number,
    position: RowPosition,
    inWindow: (cursor: Cursor) => boolean,
    tail = false,
  ): Promise<HandledPage> {
    let rows = 0;
    let emitted = 0;
    let last: Cursor | null = null;
    for (const slice of slices) {
      const handled = await this.#handleRows(slice, extractedAt, position, inWindow, tail);
      rows += slice.length;
      last = handled.last ?? last;
      const records = this.#o.expand ? await this.#o.expand(handled.records) : handled.records;
      emitted += await this.#queueRecords(records);
    }
    return { rows, last, emitted };
  }

  /** Queues records once the previous batch was taken: one batch waits while the next is built, not more. */
  async #queueRecords(records: SourceRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    await this.#delivered;
    this.#delivered = this.#o.queue.put(records);
    return records.length;
  }

  /**
   * `inWindow`: whether a row lies inside the page's window (atOrBefore its end). A row beyond it was updated
   * after the instance picked the page's rows and before it rendered them (its new sys_updated_on is after the
   * sweep's high-water mark): moving the cursor there would pass every row of the window not read yet, and a
   * crash would then lose them. Such a row is sent at once at the version it came back with, carrying the
   * current cursor as its offset (the cursor does not move); the dedup cache suppresses that version when the
   * sweep that reaches its new position reads it again. A row that changes faster than the sweeps (a hot row)
   * so reaches its topic at every version a page happens to render, instead of never. Before the table's first
   * row there is no offset to carry: such a row is left to the sweep that reaches it.
   */
  async #handleRows(
    wireRows: TableRow[],
    extractedAt: number,
    position: RowPosition,
    inWindow: (cursor: Cursor) => boolean,
    tail: boolean,
  ): Promise<{ records: SourceRecord[]; last: Cursor | null }> {
    const t = this.#o.table;
    const rows = t.displayValue === "true" ? wireRows.map((r) => this.shaped(r)) : wireRows;
    const stamp = this.#o.records.startPage(rows, extractedAt);
    const records: SourceRecord[] = [];
    let last: Cursor | null = null;
    let suppressed = 0;
    let changed = 0;
    let ahead = 0;
    for (const row of rows) {
      const rc = readRowCursor(row, t.timestampField, t.sysIdField);
      if (!rc.ok) {
        await this.#badRow(row, rc.sysId, rc.field, rc.reason);
        continue;
      }
      const c = rc.cursor;
      const version = DedupCache.versionKey(
        c.timestamp,
        c.sysId,
        String(rawValueOf(row[t.modCountField]) ?? ""),
      );
      const at = position.cursor();
      if (!inWindow(c)) {
        // Changed after the instance picked it: sent now at the version it came back with (a row that changes
        // faster than the sweeps would otherwise never be sent), the cursor left where it is.
        if (!tail) changed++;
        if (at === null || (!tail && this.#o.sendAhead === false) || this.#dedup.has(version)) continue;
        ahead++;
      } else {
        last = c;
        // A row at or before the cursor may have been handled before (an overlap re-read), one after it sent
        // ahead when it came back changed from an earlier page: either is suppressed once sent.
        const reRead = at !== null && compareCursors(c, at) <= 0;
        if (!reRead) position.moveTo(c);
        if (this.#dedup.has(version)) {
          suppressed++;
          continue;
        }
      }
      this.#dedup.add(version);
      try {
        // A late row inside the overlap, or one sent ahead, carries the current cursor: offsets never move
        // backwards, and never past rows not read yet.
        const record = this.#o.records.build(row, c.sysId, c.epochMs, position.offset(), stamp);
        this.#o.ledger?.built(record, version, c);
        records.push(record);
      } catch (error) {
        if (!(error instanceof FieldValueError)) throw error;
        await this.#badRow(row, c.sysId, error.field, error.message, error);
      }
    }
    const metrics = this.#o.context.metrics;
    metrics.increment("tablesync_source_rows_read_total", this.#labels, rows.length);
    if (records.length > 0) metrics.increment("tablesync_source_records_total", this.#labels, records.length);
    if (suppressed > 0) {
      metrics.increment("tablesync_source_duplicates_suppressed_total", this.#labels, suppressed);
    }
    if (changed > 0) {
      metrics.increment("tablesync_source_rows_changed_during_read_total", this.#labels, changed);
    }
    if (ahead > 0) metrics.increment("tablesync_source_rows_sent_ahead_total", this.#labels, ahead);
    return { records, last };
  }

  /**
   * `fail`: reported through the framework; without `errors.tolerance=all` that rejects and the task fails with
   * this error, with it the row goes to the dead letter queue and polling goes on. `skip`: logged, counted and
   * skipped (and, with `errors.tolerance=all`, also sent to the dead letter queue).
   */
  async #badRow(
    row: TableRow,
    sysId: string | null,
    field: string,
    reason: string,
    cause?: Error,
  ): Promise<void> {
    const t = this.#o.table;
    const { context, source } = this.#o;
    const error = new BadRowError(t.table, t.alias, sysId, field, reason, cause ? { cause } : undefined);
    context.metrics.increment("tablesync_source_bad_rows_total", {
      ...this.#labels,
      behavior: source.badRowBehavior,
    });
    const details = { topic: t.topic, key: sysId, value: row };
    if (source.badRowBehavior === "skip") {
      context.logger.warn({ ...this.#labels, sys_id: sysId, field }, `${error.message}; skipped`);
      if (source.toleranceAll) await context.reportBadRow(error, details);
      return;
    }
    try {
      await context.reportBadRow(error, details);
    } catch {
      // The framework refused to tolerate it: fail with our message, which names table, alias, sys id and field.
      throw error;
    }
  }
}
