/**
 * Runs a table's parallel backfill (parallel_backfill.ts): a table without a committed cursor and
 * `svc.source.backfill.parallelism` > 1 fixes T0 once, every sys id range sweeps its rows up to it concurrently,
 * their pages handled one at a time in queue order, then the table's cursor takes over from the last row read. A
 * resumed backfill (its state in the committed offset) carries on with the ranges not done.
 */
import type { TableClient } from "../instance/mod.ts";
import type { Cursor } from "./cursor.ts";
import { earliestRow } from "./earliest_row.ts";
import type { HighWater } from "./high_water.ts";
import { KeysetQuery } from "./keyset_query.ts";
import { atOrBefore } from "./page_window.ts";
import type { PageReader } from "./page_reader.ts";
import { type BackfillState, ParallelBackfill } from "./parallel_backfill.ts";
import type { StepObserver } from "./progress_tracker.ts";
import type { RowHandler, RowPosition } from "./row_handler.ts";
import type { SourceSettings, TableSettings } from "./settings.ts";
import { Sweep, sweepStart } from "./sweep.ts";
import type { TableBackoff } from "./table_backoff.ts";
import type { Logger } from "../observability/log.ts";

export interface BackfillRunnerOptions {
  readonly table: TableSettings;
  readonly source: SourceSettings;
  readonly client: TableClient;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly backoff: TableBackoff;
  readonly high: HighWater;
  readonly pages: PageReader;
  readonly rows: RowHandler;
  readonly progress?: StepObserver;
}

export class BackfillRunner {
  /** Handling of pages, one at a time in queue order (the ranges fetch concurrently). */
  #handling: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: BackfillRunnerOptions) {}

  /**
   * Runs the backfill `state` (a resumed one), or starts one when the table has no cursor and a parallelism
   * over 1. Returns the cursor streaming starts from (null: no row), or undefined when there was no backfill or
   * the signal aborted it.
   */
  async run(state: BackfillState | null, cursor: Cursor | null): Promise<Cursor | null | undefined> {
    const { signal, backoff, table: t } = this.o;
    let backfill = state ? new ParallelBackfill(state) : null;
    while (backfill === null && cursor === null && t.backfillParallelism > 1 && !signal.aborted) {
      await backoff.wait(signal);
      if (signal.aborted) return undefined;
      try {
        backfill = ParallelBackfill.start(await this.o.high.fresh(), t.backfillParallelism);
      } catch (error) {
        if (signal.aborted) return undefined;
        backoff.failed(error);
      }
    }
    if (backfill === null || signal.aborted) return undefined;
    const labels = { table: t.table, alias: t.alias };
    this.o.logger.info(
      {
        ...labels,
        high: backfill.high.text,
        ranges: backfill.ids.length,
        pending: backfill.pending().length,
      },
      `table ${t.table} backfills in ${backfill.ids.length} sys id ranges up to ${backfill.high.text}`,
    );
    await Promise.all(backfill.pending().map((i) => this.#readRange(backfill, i)));
    if (signal.aborted) return undefined;
    this.o.logger.info(labels, `table ${t.table}: backfill done, streaming follows`);
    return backfill.handoverCursor();
  }

  /** Sweeps range `i` up to the backfill's high-water mark; its pages are handled one at a time with the others'. */
  async #readRange(backfill: ParallelBackfill, i: number): Promise<void> {
    const { signal, source, backoff, table: t } = this.o;
    const query = new KeysetQuery(t.query, t.timestampField, t.sysIdField, backfill.ids[i]);
    const position: RowPosition = {
      cursor: () => backfill.range(i).cursor,
      moveTo: (c) => backfill.moveTo(i, c),
      offset: () => backfill.offset(),
    };
    const sweep = new Sweep(
      sweepStart(position.cursor(), t.startTimestamp, source.overlapSeconds),
      backfill.high,
      [],
      position.cursor() === null,
    );
    let going = !sweep.empty;
    while (going && !signal.aborted) {
      await backoff.wait(signal);
      if (signal.aborted) return;
      try {
        const inWindow = atOrBefore(sweep.end);
        const { page, limit, extractedAt, done } = await this.o.pages.read(sweep.next(query));
        going = await this.#serially(async () => {
          try {
            // Pages read before a stop wait their turn behind the others': not worth handling any more.
            if (signal.aborted) return false;
            const { rows, last, emitted } = await this.o.rows.handlePage(
              page.slices,
              extractedAt,
              position,
              inWindow,
            );
            const more = sweep.advance({ rows, limit, last, total: page.total });
            this.o.progress?.scanned?.(sweep.lastPassed.raw, sweep.lastPassed.readable);
            this.o.progress?.stepped(emitted, null, false);
            return more;
          } finally {
            done();
          }
        });
        if (going && sweep.wantsEarliest) {
          sweep.earliest(await earliestRow(this.o.client, t, query, sweep, this.o.logger, signal));
        }
        backoff.recovered();
      } catch (error) {
        if (signal.aborted) return;
        backoff.failed(error);
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
}
