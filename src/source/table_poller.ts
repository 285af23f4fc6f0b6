/**
 * One table's polling loop: sweeps (sweep.ts) of keyset pages (keyset_query.ts; read by page_reader.ts within the
 * task's page budget) bounded by a high-water mark (instance_time.ts), rows checked for their cursor (row_cursor.ts) and against the dedup cache (dedup_cache.ts),
 * turned into records (record_builder.ts) and handed to the task (record_queue.ts).
 *
 * Failures are kept to the table (table_backoff.ts): it backs off and retries the same page while the task's other
 * tables go on. A bad row under `fail`, and anything that is not an instance failure, ends the loop with the
 * error, which fails the task.
 */
import type { SourceOffset, SourcePartition, SourceRecord } from "../connect/record.ts";
import type { SourceTaskContext } from "../connect/task_api.ts";
import type { SlicedListPage, TableClient, TableRow } from "../instance/mod.ts";
import { BadRowError } from "./bad_row.ts";
import { compareCursors, type Cursor, cursorToOffset } from "./cursor.ts";
import { DedupCache } from "./dedup_cache.ts";
import type { OverlapLedger } from "./overlap_ledger.ts";
import { rawValueOf, toDisplayShape } from "./display_value.ts";
import { type HighWaterMark, highWaterMark, type InstanceTimeSource } from "./instance_time.ts";
import { KeysetQuery } from "./keyset_query.ts";
import type { StepObserver } from "./progress_tracker.ts";
import type { RecordBuilder } from "./record_builder.ts";
import type { RecordQueue } from "./record_queue.ts";
import { readRowCursor } from "./row_cursor.ts";
import { FieldValueError } from "./schema_modes/mod.ts";
import type { SourceSettings, TableSettings } from "./settings.ts";
import { hintsFrom, type PageRequest, Sweep, sweepStart } from "./sweep.ts";
import { type BackfillState, ParallelBackfill } from "./parallel_backfill.ts";
import { atOrBefore, type PageEnd } from "./page_window.ts";
import { TableBackoff } from "./table_backoff.ts";
import type { PageBudget } from "./page_budget.ts";
import { PageReader } from "./page_reader.ts";

export interface TablePollerOptions {
  readonly table: TableSettings;
  readonly source: SourceSettings;
  readonly client: TableClient;
  readonly clock: InstanceTimeSource;
  readonly context: SourceTaskContext;
  readonly partition: SourcePartition;
  /** The committed cursor read at start, or null (then the table starts at its start timestamp). */
  readonly committed: Cursor | null;
  /** Versions the committed offset says were already sent inside its overlap window: seed the dedup cache. */
  readonly sentInOverlap?: readonly string[];
  /** Told of every record built, so a graceful stop can list what was acknowledged (overlap_ledger.ts). */
  readonly ledger?: OverlapLedger;
  /** The committed state of an unfinished parallel backfill, resumed before streaming (parallel_backfill.ts). */
  readonly backfill?: BackfillState | null;
  readonly records: Pick<RecordBuilder, "startPage" | "build">;
  readonly queue: RecordQueue;
  /** The task's bound on page bodies held at once, shared by its tables (page_budget.ts); none = unbounded. */
  readonly pageBudget?: PageBudget;
  readonly signal: AbortSignal;
  /** Told what each step emitted, once its records are queued, and what failed (progress_tracker.ts). */
  readonly progress?: StepObserver;
  /** Turns a step's records into the records to queue (deletion capture: audit rows to tombstones). */
  readonly expand?: (records: SourceRecord[]) => Promise<SourceRecord[]>;
  /** Bounds each sweep's high-water mark (deletion capture keeps rows behind the deletions read). */
  readonly sweepBound?: (mark: HighWaterMark, signal: AbortSignal) => Promise<HighWaterMark>;
}

/** A page asked for ahead of its turn (TablePoller's #readAhead). */
interface PageAhead {
  readonly request: PageRequest;
  /** The page size it asked for. */
  readonly limit: number;
  readonly page: ReturnType<PageReader["read"]>;
  /** Ends the request if it is still going, and gives its share of the page budget back. */
  cancel(): void;
}

function sameRequest(a: PageRequest, b: PageRequest): boolean {
  return a.query === b.query && a.count === b.count;
}

/** Where handled rows move a cursor: the table's, or a range's of a parallel backfill. */
interface RowPosition {
  cursor(): Cursor | null;
  moveTo(cursor: Cursor): void;
  /** The offset of a record handled now. */
  offset(): SourceOffset;
}

export class TablePoller {
  readonly #o: TablePollerOptions;
  readonly #t: TableSettings;
  readonly #query: KeysetQuery;
  readonly #dedup: DedupCache;
  readonly #keepRaw: ReadonlySet<string>;
  readonly #labels: Record<string, string>;
  /** The last row handled (emitted, suppressed or skipped): where the next sweep's overlap is measured from. */
  #cursor: Cursor | null;
  /** `#cursor` as an offset, shared by every record until the cursor moves. */
  #offset: SourceOffset | null;
  #sweep: Sweep | null = null;
  /** Where the last sweep found windows of hidden rows covered: tried first by the next sweep. */
  #hints: readonly PageEnd[] = [];
  /** When the next request may go; the page size; what a failure does (table_backoff.ts). */
  readonly #backoff: TableBackoff;
  /** The running parallel backfill, null once handed over to the cursor (or when there is none). */
  #backfill: ParallelBackfill | null;
  /** Handling of pages, one at a time in queue order (the ranges of a parallel backfill fetch concurrently). */
  #handling: Promise<unknown> = Promise.resolve();
  /** The last batch put on the queue: one waits there while the next page is fetched; not more. */
  #delivered: Promise<void> = Promise.resolve();
  /** The table's own cursor as a row position. */
  readonly #streaming: RowPosition;
  /** Pages asked for within the task's page budget (page_reader.ts). */
  readonly #pages: PageReader;
  /** The streaming sweep's next page, asked for while the last one was handled (#readAhead), or null. */
  #ahead: PageAhead | null = null;

  constructor(o: TablePollerOptions, keepRaw: ReadonlySet<string>) {
    this.#o = o;
    this.#t = o.table;
    this.#query = new KeysetQuery(o.table.query, o.table.timestampField, o.table.sysIdField);
    this.#dedup = new DedupCache(o.source.dedupWindowRecords);
    for (const version of o.sentInOverlap ?? []) this.#dedup.add(version);
    this.#keepRaw = keepRaw;
    this.#labels = { table: o.table.table, alias: o.table.alias };
    this.#cursor = o.committed;
    this.#offset = o.committed === null ? null : cursorToOffset(o.committed);
    this.#backoff = new TableBackoff(o.table, o.context, o.progress);
    this.#pages = new PageReader({ ...o, backoff: this.#backoff });
    this.#backfill = o.backfill ? new ParallelBackfill(o.backfill) : null;
    this.#streaming = {
      cursor: () => this.#cursor,
      moveTo: (c) => {
        this.#cursor = c;
        this.#offset = cursorToOffset(c);
      },
      offset: () => this.#offset!,
    };
  }

  get alias(): string {
    return this.#t.alias;
  }

  /** The table's position (for tests and status). */
  get cursor(): Cursor | null {
    return this.#cursor;
  }

  /** Polls until the signal aborts; rejects with an error that must fail the task. */
  async run(): Promise<void> {
    const { signal, context } = this.#o;
    await this.#runBackfill();
    while (!signal.aborted) {
      await this.#backoff.wait(signal);
      if (signal.aborted) break;
      let emitted: number;
      try {
        emitted = await this.#step();
        this.#backoff.recovered();
      } catch (error) {
        if (signal.aborted) break;
        this.#backoff.failed(error);
        continue;
      }
      // Told after the records are queued; no sweep running means the last one reached its end.
      this.#o.progress?.stepped(emitted, this.#cursor, this.#sweep === null);
    }
    this.#ahead?.cancel();
    this.#ahead = null;
    context.logger.debug({ ...this.#labels }, "table poller stopped");
  }

  /** Queues records once the previous batch was taken: one batch waits while the next is built, not more. */
  async #queueRecords(records: SourceRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    await this.#delivered;
    this.#delivered = this.#o.queue.put(records);
    return records.length;
  }

  /**
   * The parallel backfill of a table without a committed cursor (parallelism > 1), or the resumed one: T0 is
   * fixed once, every range sweeps its sys ids up to it, then the cursor takes over from the last row read.
   */
  async #runBackfill(): Promise<void> {
    const { signal } = this.#o;
    const t = this.#t;
    while (this.#backfill === null && this.#cursor === null && t.backfillParallelism > 1 && !signal.aborted) {
      await this.#backoff.wait(signal);
      if (signal.aborted) return;
      try {
        this.#backfill = ParallelBackfill.start(await this.#highWater(), t.backfillParallelism);
      } catch (error) {
        if (signal.aborted) return;
        this.#backoff.failed(error);
      }
    }
    const backfill = this.#backfill;
    if (backfill === null || signal.aborted) return;
    this.#o.context.logger.info(
      {
        ...this.#labels,
        high: backfill.high.text,
        ranges: backfill.ids.length,
        pending: backfill.pending().length,
      },
      `table ${t.table} backfills in ${backfill.ids.length} sys id ranges up to ${backfill.high.text}`,
    );
    await Promise.all(backfill.pending().map((i) => this.#readRange(backfill, i)));
    if (signal.aborted) return;
    const handover = backfill.handoverCursor();
    this.#cursor = handover;
    this.#offset = handover === null ? null : cursorToOffset(handover);
    this.#backfill = null;
    this.#o.context.logger.info({ ...this.#labels }, `table ${t.table}: backfill done, streaming follows`);
  }

  /** Sweeps range `i` of the backfill up to its high-water mark; its pages are handled one at a time with the others'. */
  async #readRange(backfill: ParallelBackfill, i: number): Promise<void> {
    const { signal, source } = this.#o;
    const t = this.#t;
    const query = new KeysetQuery(t.query, t.timestampField, t.sysIdField, backfill.ids[i]);
    const position: RowPosition = {
      cursor: () => backfill.range(i).cursor,
      moveTo: (c) => backfill.moveTo(i, c),
      offset: () => backfill.offset(),
    };
    const sweep = new Sweep(
      sweepStart(position.cursor(), t.startTimestamp, source.overlapSeconds),
      backfill.high,
    );
    let going = !sweep.empty;
    while (going && !signal.aborted) {
      await this.#backoff.wait(signal);
      if (signal.aborted) return;
      try {
        const inWindow = atOrBefore(sweep.end);
        const { page, limit, extractedAt, done } = await this.#pages.read(sweep.next(query));
        going = await this.#serially(async () => {
          try {
            const { rows, last, emitted } = await this.#handlePage(
              page.slices,
              extractedAt,
              position,
              inWindow,
            );
            const more = sweep.advance({ rows, limit, last, total: page.total });
            this.#o.progress?.stepped(emitted, null, false);
            return more;
          } finally {
            done();
          }
        });
        this.#backoff.recovered();
      } catch (error) {
        if (signal.aborted) return;
        this.#backoff.failed(error);
      }
    }
    if (!signal.aborted) backfill.finish(i);
  }

  /** Runs `work` after every handling queued before it: records reach the queue in the order offsets were taken. */
  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#handling.then(work);
    this.#handling = run.catch(() => {});
    return run;
  }

  /** One page (starting a sweep when none is running); queues its records and returns how many. */
  async #step(): Promise<number> {
    const t = this.#t;
    if (this.#sweep === null) {
      const sweep = new Sweep(
        sweepStart(this.#cursor, t.startTimestamp, this.#o.source.overlapSeconds),
        await this.#highWater(),
        this.#hints,
      );
      if (sweep.empty) {
        this.#backoff.pollIntervalStarts();
        return 0;
      }
      this.#sweep = sweep;
    }
    const sweep = this.#sweep;
    const inWindow = atOrBefore(sweep.end);
    const { page, limit, extractedAt, done } = await this.#nextPage(sweep.next(this.#query));
    // The next page is asked for while this one is handled (the instance prepares and sends it meanwhile) when
    // this one looks full; it is used only if the sweep, advanced over this page, asks for that very page.
    let ahead = this.#readAhead(sweep, page, limit, inWindow);
    let emitted;
    try {
      let handled;
      try {
        handled = await this.#handlePage(page.slices, extractedAt, this.#streaming, inWindow);
      } finally {
        done();
      }
      const { rows, last } = handled;
      emitted = handled.emitted;
      if (this.#cursor && page.instanceTime) {
        // How far the table's cursor trails the instance clock (includes the safety lag and quiet periods).
        const lag = (page.instanceTime.getTime() - this.#cursor.epochMs) / 1000;
        this.#o.context.metrics.set("tablesync_source_lag_seconds", this.#labels, Math.max(0, lag));
      }
      if (sweep.advance({ rows, limit, last, total: page.total })) {
        this.#ahead = ahead;
        ahead = null;
        return emitted;
      }
    } finally {
      ahead?.cancel();
    }
    this.#sweep = null;
    this.#hints = hintsFrom(sweep.coveredWindows, this.#backoff.limit);
    this.#backoff.pollIntervalStarts();
    this.#o.context.logger.debug({ ...this.#labels, ...sweep.stats }, "sweep done");
    return emitted;
  }

  /** The page `request` names: the one read ahead when it is that page (at today's page size), else read now. */
  #nextPage(request: PageRequest): ReturnType<PageReader["read"]> {
    const ahead = this.#ahead;
    this.#ahead = null;
    if (ahead && ahead.limit === this.#backoff.limit && sameRequest(ahead.request, request)) {
      return ahead.page;
    }
    ahead?.cancel();
    return this.#pages.read(request);
  }

  /**
   * Starts reading the page that follows `page` if `page` is full (as far as its end tells before it is parsed:
   * result_slices.ts's resultEnd), or null. Whatever it guesses is checked by #nextPage against the request the
   * sweep makes once it has advanced over `page`; a wrong guess costs a request, never a row.
   */
  #readAhead(
    sweep: Sweep,
    page: SlicedListPage,
    limit: number,
    inWindow: (cursor: Cursor) => boolean,
  ): PageAhead | null {
    const end = page.end();
    if (end === null || end.rowsAtMost < limit || end.last === null) return null;
    const t = this.#t;
    const row = t.displayValue === "true" ? toDisplayShape(end.last, this.#keepRaw) : end.last;
    const rc = readRowCursor(row, t.timestampField, t.sysIdField);
    // A last row beyond the page's window changed while the page was read: the sweep goes on from another row.
    if (!rc.ok || !inWindow(rc.cursor)) return null;
    const request = sweep.nextAfterFull(this.#query, rc.cursor, limit, page.total);
    if (request === null) return null;
    const abort = new AbortController();
    const read = this.#pages.read(request, AbortSignal.any([this.#o.signal, abort.signal]));
    // Not awaited until used: a failure is seen by #step then (as if the page were read then), or not at all.
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

  async #highWater(): Promise<HighWaterMark> {
    let instantMs = this.#o.clock.fresh();
    if (instantMs === null) {
      const date = await this.#o.client.readClock(this.#t.table, this.#o.signal);
      this.#o.clock.observe(date);
      instantMs = date.getTime();
    }
    const mark = highWaterMark(instantMs, this.#o.source.safetyLagSeconds);
    return this.#o.sweepBound ? await this.#o.sweepBound(mark, this.#o.signal) : mark;
  }

  /**
   * A page's rows a slice at a time (result_slices.ts): each slice's records are queued before the next slice is
   * parsed, so a page is never alive as every row and every record at once. The cursor moves row by row as
   * before; a page that fails half-way leaves its first slices queued, and the sweep asks for the same page
   * again (the rows re-read are at or before the cursor: the dedup cache suppresses them).
   */
  async #handlePage(
    slices: Iterable<TableRow[]>,
    extractedAt: number,
    position: RowPosition,
    inWindow: (cursor: Cursor) => boolean,
  ): Promise<{ rows: number; last: Cursor | null; emitted: number }> {
    let rows = 0;
    let emitted = 0;
    let last: Cursor | null = null;
    for (const slice of slices) {
      const handled = await this.#handleRows(slice, extractedAt, position, inWindow);
      rows += slice.length;
      last = handled.last ?? last;
      const records = this.#o.expand ? await this.#o.expand(handled.records) : handled.records;
      emitted += await this.#queueRecords(records);
    }
    return { rows, last, emitted };
  }

  /**
   * `inWindow`: whether a row lies inside the page's window (atOrBefore its end). A row beyond it was updated
   * after the instance picked the page's rows and before it rendered them (its new sys_updated_on is after the
   * sweep's high-water mark): moving the cursor there would pass every row of the window not read yet, and a
   * crash would then lose them. Such a row is left to the sweep that reaches its new position in cursor order.
   */
  async #handleRows(
    wireRows: TableRow[],
    extractedAt: number,
    position: RowPosition,
    inWindow: (cursor: Cursor) => boolean,
  ): Promise<{ records: SourceRecord[]; last: Cursor | null }> {
    const t = this.#t;
    const rows = t.displayValue === "true" ? wireRows.map((r) => toDisplayShape(r, this.#keepRaw)) : wireRows;
    const stamp = this.#o.records.startPage(rows, extractedAt);
    const records: SourceRecord[] = [];
    let last: Cursor | null = null;
    let suppressed = 0;
    let changed = 0;
    for (const row of rows) {
      const rc = readRowCursor(row, t.timestampField, t.sysIdField);
      if (!rc.ok) {
        await this.#badRow(row, rc.sysId, rc.field, rc.reason);
        continue;
      }
      const c = rc.cursor;
      if (!inWindow(c)) {
        changed++;
        continue;
      }
      last = c;
      const version = DedupCache.versionKey(
        c.timestamp,
        c.sysId,
        String(rawValueOf(row[t.modCountField]) ?? ""),
      );
      // Only a row at or before the cursor can have been handled before in this run (an overlap re-read).
      const at = position.cursor();
      const reRead = at !== null && compareCursors(c, at) <= 0;
      if (reRead && this.#dedup.has(version)) {
        suppressed++;
        continue;
      }
      this.#dedup.add(version);
      if (!reRead) position.moveTo(c);
      try {
        // A late row inside the overlap carries the current cursor: offsets never move backwards.
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
    const t = this.#t;
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
