/**
 * One table's polling loop: sweeps (sweep.ts) of keyset pages (keyset_query.ts; read by page_reader.ts within the
 * task's page budget, the next one read ahead by read_ahead.ts) bounded by a high-water mark (high_water.ts), the
 * rows handled by row_handler.ts (cursor, dedup, records, queue); a parallel backfill first when there is one
 * (backfill_runner.ts).
 *
 * Failures are kept to the table (table_backoff.ts): it backs off and retries the same page while the task's other
 * tables go on. A bad row under `fail`, and anything that is not an instance failure, ends the loop with the
 * error, which fails the task.
 */
import { steadyNow } from "../common/steady_clock.ts";
import { formatGlideDateTime } from "./glide_timestamp.ts";
import type { SourceOffset, SourcePartition, SourceRecord } from "../connect/record.ts";
import type { SourceTaskContext } from "../connect/task_api.ts";
import type { TableClient } from "../instance/mod.ts";
import { type Cursor, cursorToOffset } from "./cursor.ts";
import type { OverlapLedger } from "./overlap_ledger.ts";
import { BackfillRunner } from "./backfill_runner.ts";
import { earliestRow } from "./earliest_row.ts";
import { HighWater } from "./high_water.ts";
import type { HighWaterMark, InstanceTimeSource } from "./instance_time.ts";
import { KeysetQuery } from "./keyset_query.ts";
import type { StepObserver } from "./progress_tracker.ts";
import type { RecordBuilder } from "./record_builder.ts";
import type { RecordQueue } from "./record_queue.ts";
import type { SourceSettings, TableSettings } from "./settings.ts";
import { hintsFrom, Sweep, sweepStart } from "./sweep.ts";
import type { BackfillState } from "./parallel_backfill.ts";
import { atOrBefore, type PageEnd } from "./page_window.ts";
import { TableBackoff } from "./table_backoff.ts";
import type { PageBudget } from "./page_budget.ts";
import { PageReader } from "./page_reader.ts";
import { ReadAhead } from "./read_ahead.ts";
import type { ScheduledTable } from "./poll_scheduler.ts";
import { RowHandler, type RowPosition } from "./row_handler.ts";
import { idleAfter } from "./poll_batching.ts";
import { HotTail } from "./hot_tail.ts";
import { TimeBackwards, type TimeBackwardsAction } from "./time_backwards.ts";
import type { ReconcileWiring } from "./reconcile/reconcile_wiring.ts";
import { sleepEndingOnAbort } from "../common/delay.ts";
import type { ReconcilePass } from "./reconcile/reconcile_pass.ts";
import type { SnapshotWiring, TableSnapshot } from "./snapshot/table_snapshot.ts";

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
  /**
   * When idle polls share Batch API requests (poll_batching.ts): moves an idle table's next poll to a shared
   * tick, so that the task's idle polls come due together. Absent: the poll interval as it is.
   */
  readonly alignIdlePoll?: (dueAt: number, intervalMs: number) => number;
  /** When the table polls again after a sweep (poll_scheduler.ts); none = always at its poll interval. */
  readonly schedule?: ScheduledTable;
  /** Bounds each sweep's high-water mark (deletion capture keeps rows behind the deletions read). */
  readonly sweepBound?: (mark: HighWaterMark, signal: AbortSignal) => Promise<HighWaterMark>;
  /**
   * Rows changed after a sweep's mark may be sent ahead of the cursor (row_handler.ts, hot_tail.ts). Default
   * true; false under deletion capture, whose bound keeps a row's version behind the deletions not read yet.
   */
  readonly sendAhead?: boolean;
  /**
   * Under deletion capture: the tail's rows whose keys have a deletion not read yet (deletes/unread_deletions.ts);
   * the others are sent ahead. With it, the tail is read although `sendAhead` is false.
   */
  readonly tailGuard?: (sysIds: readonly string[], signal: AbortSignal) => Promise<ReadonlySet<string>>;
  /** Watch for the instance going back in time (time_backwards.ts). Default true. */
  readonly watchTime?: boolean;
  /** Background reconcile passes between polls (reconcile/); none = off. */
  readonly reconcile?: ReconcileWiring;
  /** Re-snapshots on demand (snapshot/); none = the table has none. */
  readonly snapshot?: SnapshotWiring;
}

/** What one step did: records queued, and whether a sweep reached its high-water mark (the table caught up). */
interface Step {
  readonly emitted: number;
  readonly caughtUp: boolean;
}

export class TablePoller {
  readonly #o: TablePollerOptions;
  readonly #t: TableSettings;
  readonly #query: KeysetQuery;
  readonly #labels: Record<string, string>;
  /** The last row handled (emitted, suppressed or skipped): where the next sweep's overlap is measured from. */
  #cursor: Cursor | null;
  /** `#cursor` as an offset, shared by every record until the cursor moves. */
  #offset: SourceOffset | null;
  #sweep: Sweep | null = null;
  /** The instance's own clock reading before the running sweep's first request (no local clock in it). */
  #readingAtSweep: number | null = null;
  /** When (local clock) the running sweep fixed its high-water mark. */
  #sweepStartedAt = 0;
  /** The local instant from which the running sweep's window leaves changes to the next one (its mark). */
  #windowEndedAt = 0;
  /** Records the running sweep emitted so far: did it find changes (the poll scheduler's signal). */
  #sweepEmitted = 0;
  /** Where the last sweep found windows of hidden rows covered: tried first by the next sweep. */
  #hints: readonly PageEnd[] = [];
  /** When the next request may go; the page size; what a failure does (table_backoff.ts). */
  readonly #backoff: TableBackoff;
  readonly #high: HighWater;
  readonly #rows: RowHandler;
  /** The table's own cursor as a row position. */
  readonly #streaming: RowPosition;
  /** Pages asked for within the task's page budget (page_reader.ts). */
  readonly #pages: PageReader;
  /** The streaming sweep's next page, asked for while the last one is handled. */
  readonly #ahead: ReadAhead;
  /** The last sweep was one small page (idleAfter): its next window query is expected to be small too. */
  #idle = false;
  /** Rows changed after a busy sweep's mark, sent ahead so that hot rows do not wait (hot_tail.ts). */
  readonly #tail: HotTail;
  /** Watches for the instance going back in time (time_backwards.ts). */
  readonly #backwards: TimeBackwards;
  /** The table's reconcile passes, run while it waits for its next poll. */
  readonly reconcile: ReconcilePass | null;
  /** The table's re-snapshots, run beside its polling. */
  readonly snapshot: TableSnapshot | null;

  constructor(o: TablePollerOptions, keepRaw: ReadonlySet<string>) {
    this.#o = o;
    this.#t = o.table;
    this.#query = new KeysetQuery(o.table.query, o.table.timestampField, o.table.sysIdField);
    this.#labels = { table: o.table.table, alias: o.table.alias };
    this.#cursor = o.committed;
    this.#offset = o.committed === null ? null : cursorToOffset(o.committed);
    this.#backoff = new TableBackoff(o.table, o.context, o.progress);
    this.#high = new HighWater(o);
    this.#rows = new RowHandler(o, keepRaw);
    this.#pages = new PageReader({ ...o, backoff: this.#backoff });
    this.#ahead = new ReadAhead(o.table, this.#query, this.#pages, o.signal, (row) => this.#rows.shaped(row));
    this.#streaming = {
      cursor: () => this.#cursor,
      moveTo: (c) => this.#moveTo(c),
      offset: () => this.#offset!,
    };
    this.#tail = new HotTail({
      query: this.#query,
      pages: this.#pages,
      rows: this.#rows,
      position: this.#streaming,
      guard: o.tailGuard,
      signal: o.signal,
    });
    this.#backwards = new TimeBackwards({ ...o, warned: (m) => o.progress?.warned?.(m) });
    this.reconcile = o.reconcile?.(this.#pages, (row) => this.#rows.shaped(row), this.#streaming) ?? null;
    this.snapshot = o.snapshot?.(this.#pages, (row) => this.#rows.shaped(row)) ?? null;
  }

  get alias(): string {
    return this.#t.alias;
  }

  /** The table's position (for tests and status). */
  get cursor(): Cursor | null {
    return this.#cursor;
  }

  /**
   * The instance's clock is behind the cursor: it was set back, and rows already read carry times it has not
   * reached again. Every row changed from now on would be stamped before the cursor and never read, so the
   * cursor moves back to the mark, with one line (rows in between are read again: at-least-once, never lost).
   */
  #clockSetBack(mark: HighWaterMark): void {
    this.#o.context.logger.warn(
      { ...this.#labels, cursor: this.#cursor!.timestamp, mark: formatGlideDateTime(mark.epochMs) },
      `table ${this.#t.table} (alias ${this.#t.alias}): the instance clock is behind the cursor (set back); ` +
        `reading again from ${formatGlideDateTime(mark.epochMs)}`,
    );
    this.#moveTo({ timestamp: formatGlideDateTime(mark.epochMs), sysId: "", epochMs: mark.epochMs });
  }

  #moveTo(cursor: Cursor | null): void {
    this.#cursor = cursor;
    this.#offset = cursor === null ? null : cursorToOffset(cursor);
  }

  /** Polls until the signal aborts; rejects with an error that must fail the task. */
  async run(): Promise<void> {
    const { signal, context } = this.#o;
    const handover = await new BackfillRunner({
      ...this.#o,
      logger: context.logger,
      backoff: this.#backoff,
      high: this.#high,
      pages: this.#pages,
      rows: this.#rows,
    }).run(this.#o.backfill ?? null, this.#cursor);
    if (handover !== undefined) this.#moveTo(handover);
    while (!signal.aborted) {
      await this.#reconcileWhileWaiting();
      await this.#backoff.wait(signal);
      if (signal.aborted) break;
      const later = this.#sweep === null ? this.#o.schedule?.postponedTo(steadyNow()) : null;
      if (later) {
        this.#backoff.pollAt(later);
        this.#o.progress?.scheduled?.(this.#o.schedule!.waitMs!);
        continue;
      }
      let step: Step;
      try {
        step = await this.#step();
        this.#backoff.recovered();
        this.#sweepEmitted += step.emitted;
        this.#o.schedule?.stepped(step.caughtUp);
        if (step.caughtUp) this.#sweepEnded();
      } catch (error) {
        if (signal.aborted) break;
        this.#backoff.failed(error);
        continue;
      }
      // Told after the records are queued, with when the table was last proven caught up.
      this.#o.progress?.stepped(step.emitted, this.#cursor, step.caughtUp, this.#sweepStartedAt);
    }
    this.#ahead.cancel();
    context.logger.debug({ ...this.#labels }, "table poller stopped");
  }

  /** While the table waits for its next poll: reconcile pages that fit before it (reconcile_pass.ts). */
  async #reconcileWhileWaiting(): Promise<void> {
    const pass = this.reconcile;
    if (pass === null || this.#sweep !== null) return;
    for (;;) {
      const remaining = this.#backoff.nextAt - steadyNow();
      if (remaining <= 0 || this.#o.signal.aborted) return;
      if (!(await pass.work(remaining))) await sleepEndingOnAbort(Math.min(remaining, 250), this.#o.signal);
    }
  }

  /** A sweep ended (or found nothing to do): the next one waits the poll interval the scheduler gives. */
  #sweepEnded(): void {
    const schedule = this.#o.schedule;
    // An idle table's next poll moves to the task's shared tick, so idle polls travel in one batch.
    const align = this.#idle ? this.#o.alignIdlePoll : undefined;
    if (schedule === undefined) this.#backoff.pollIntervalStarts(undefined, align);
    else {
      const interval = schedule.swept(this.#sweepEmitted > 0, steadyNow(), this.#windowEndedAt);
      this.#backoff.pollIntervalStarts(interval, align, schedule.latestStartAt);
      this.#o.progress?.scheduled?.(interval);
    }
    this.#sweepEmitted = 0;
  }

  /** One page (starting a sweep when none is running); queues its records. */
  async #step(): Promise<Step> {
    const t = this.#t;
    if (this.#sweep === null) {
      this.#sweepStartedAt = steadyNow();
      const mark = await this.#high.forSweep();
      this.#readingAtSweep = this.#o.clock.last();
      if (this.#cursor !== null && mark.epochMs < this.#cursor.epochMs) this.#clockSetBack(mark);
      // Changes after the mark are left to the next sweep: the instance clock ran ahead of it by the lag and the
      // second the mark is truncated to (the poll scheduler's deadline counts from here).
      this.#windowEndedAt = steadyNow() -
        Math.max(0, (this.#o.clock.estimate() ?? mark.epochMs) - mark.epochMs);
      const sweep = new Sweep(
        sweepStart(this.#cursor, t.startTimestamp, this.#o.source.overlapSeconds),
        mark,
        this.#hints,
        this.#cursor === null,
      );
      if (sweep.empty) return { emitted: 0, caughtUp: true };
      this.#sweep = sweep;
    }
    const sweep = this.#sweep;
    const inWindow = atOrBefore(sweep.end);
    // An idle table's window query may share a Batch API request with other tables' (poll_batching.ts).
    const { page, limit, extractedAt, done } = await this.#ahead.next(
      { ...sweep.next(this.#query), coalesce: this.#idle && sweep.pages === 0 },
      this.#backoff.limit,
    );
    if (sweep.pages === 0) this.#o.schedule?.delayed(steadyNow() - this.#sweepStartedAt);
    if (sweep.pages === 0 && this.#high.contradicts(sweep.highWater, page.instanceTime)) {
      // The instance clock is behind the mark: this page may hold rows of a second still being written.
      done();
      this.#sweep = null;
      // Measured against the instance's last reading, not the mark: the mark is carried forward on the local
      // clock, and a host clock stepped forward must not read as an instance gone back.
      if (this.#o.watchTime !== false && this.#readingAtSweep !== null) {
        this.#react(this.#backwards.clockBehind(this.#readingAtSweep, page.instanceTime!.getTime()));
      }
      this.#o.context.logger.debug(
        { ...this.#labels, high: sweep.highWater.text },
        "instance clock behind mark",
      );
      return { emitted: 0, caughtUp: false };
    }
    // The next page is asked for while this one is handled when this one looks full.
    let ahead = this.#ahead.start(sweep, page, limit, inWindow);
    let emitted;
    try {
      let handled;
      try {
        handled = await this.#rows.handlePage(page.slices, extractedAt, this.#streaming, inWindow);
      } finally {
        done();
      }
      const { rows, last } = handled;
      emitted = handled.emitted;
      const more = sweep.advance({ rows, limit, last, total: page.total });
      this.#o.progress?.scanned?.(sweep.lastPassed.raw, sweep.lastPassed.readable);
      if (more) {
        this.#ahead.keep(ahead);
        ahead = null;
        if (sweep.wantsEarliest) {
          const { client, context, signal } = this.#o;
          sweep.earliest(await earliestRow(client, t, this.#query, sweep, context.logger, signal));
        }
        return { emitted, caughtUp: false };
      }
    } finally {
      ahead?.cancel();
    }
    this.#sweep = null;
    this.#hints = hintsFrom(sweep.coveredWindows, this.#backoff.limit);
    this.#idle = idleAfter(sweep.pages, page.bytes);
    this.#o.context.logger.debug({ ...this.#labels, ...sweep.stats }, "sweep done");
    const tail = this.#o.sendAhead !== false || this.#o.tailGuard !== undefined;
    if (tail && this.#tail.wanted(this.#sweepEmitted + emitted)) {
      emitted += await this.#readTail(sweep.highWater);
    }
    if (this.#o.watchTime !== false && sweep.pages === 1 && page.total === 0) {
      const present = this.#o.clock.estimate() ?? sweep.highWater.epochMs;
      this.#react(await this.#backwards.emptySweep(this.#cursor, present));
    }
    return { emitted, caughtUp: true };
  }

  /** The instance went back in time: read the table again from its start, or restart the cursor. */
  #react(action: TimeBackwardsAction): void {
    if (action.kind === "none") return;
    this.#rows.forget();
    this.#hints = [];
    this.#moveTo(action.kind === "restart" ? action.cursor : null);
  }

  /** The tail after a busy sweep; a failed tail read is left to the next sweep (it reads those rows anyway). */
  async #readTail(mark: HighWaterMark): Promise<number> {
    try {
      return await this.#tail.read(mark);
    } catch (error) {
      if (this.#o.signal.aborted) throw error;
      this.#o.context.logger.debug({ ...this.#labels, error: String(error) }, "tail read failed");
      return 0;
    }
  }
}
