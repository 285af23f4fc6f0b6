/**
 * Publishes the task's table progress: every `reportIntervalMs` (2 s) the trackers are snapshotted and sent to
 * the runtime (`GET /connectors/<name>/tables`) and into the task's metrics (rows remaining, ETA, lag); during
 * backfill the remaining rows are recounted every `countIntervalMs` (15 s) through the Aggregate API, and one
 * progress line per table is logged every `logIntervalMs` (60 s). Counting runs beside polling and never delays
 * it; a count that fails is tried again later.
 */
import type { SourceTaskContext } from "../connect/task_api.ts";
import type { TableProgress } from "../connect/table_progress.ts";
import type { ProgressTracker, RowCounter } from "./progress_tracker.ts";

export interface ProgressReporterOptions {
  /** Default 2000. */
  reportIntervalMs?: number;
  /** Default 15000. */
  countIntervalMs?: number;
  /** Default 60000. */
  logIntervalMs?: number;
}

export class ProgressReporter {
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #lastLog = new Map<string, number>();
  #lastCount = -Infinity;
  #counting = false;
  readonly #o: Required<ProgressReporterOptions>;

  constructor(
    private readonly trackers: readonly ProgressTracker[],
    private readonly context: SourceTaskContext,
    private readonly counterFor: (table: string) => RowCounter,
    options: ProgressReporterOptions = {},
  ) {
    this.#o = {
      reportIntervalMs: options.reportIntervalMs ?? 2000,
      countIntervalMs: options.countIntervalMs ?? 15_000,
      logIntervalMs: options.logIntervalMs ?? 60_000,
    };
    this.#timer = setInterval(() => this.tick(), this.#o.reportIntervalMs);
    context.signal.addEventListener("abort", () => this.stop(), { once: true });
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One report (also called once at start, so the tables show before the first interval). */
  tick(now = Date.now()): void {
    if (!this.#counting && now - this.#lastCount >= this.#o.countIntervalMs) {
      this.#lastCount = now;
      this.#counting = true;
      this.#recountAll().finally(() => this.#counting = false);
    }
    const snapshots = this.trackers.map((t) => t.snapshot());
    this.context.reportProgress?.(snapshots);
    for (const s of snapshots) {
      this.#record(s);
      if (s.phase === "backfill") this.#maybeLog(s, now);
    }
  }

  async #recountAll(): Promise<void> {
    for (const tracker of this.trackers) {
      if (this.context.signal.aborted) return;
      try {
        await tracker.recount(this.counterFor(tracker.table.table));
      } catch (error) {
        if (this.context.signal.aborted) return;
        this.context.logger.debug(
          { table: tracker.table.table, alias: tracker.table.alias, err: error },
          "counting the remaining rows failed; trying again later",
        );
      }
    }
  }

  #record(s: TableProgress): void {
    const labels = { table: s.table, alias: s.alias };
    const metrics = this.context.metrics;
    const streaming = s.phase === "streaming";
    metrics.set("tablesync_source_backfill", labels, streaming ? 0 : 1);
    // Unknown values are left out rather than shown as a number that means nothing.
    const remaining = streaming ? 0 : s.rows_remaining;
    const eta = streaming ? 0 : s.eta_seconds_estimate;
    if (remaining !== null) metrics.set("tablesync_source_rows_remaining", labels, remaining);
    if (eta !== null) metrics.set("tablesync_source_eta_seconds", labels, eta);
    if (s.lag_seconds !== null) metrics.set("tablesync_source_lag_seconds", labels, s.lag_seconds);
  }

  #maybeLog(s: TableProgress, now: number): void {
    const last = this.#lastLog.get(s.alias);
    if (last === undefined) {
      // The first line comes one interval after start, when there is something to say.
      this.#lastLog.set(s.alias, now);
      return;
    }
    if (now - last < this.#o.logIntervalMs) return;
    this.#lastLog.set(s.alias, now);
    const eta = s.eta_seconds_estimate === null ? "unknown" : `about ${s.eta_seconds_estimate}s`;
    const remaining = s.rows_remaining === null ? "unknown" : String(s.rows_remaining);
    this.context.logger.info(
      {
        table: s.table,
        alias: s.alias,
        rows_emitted: s.rows_emitted,
        rows_remaining: s.rows_remaining,
        eta_seconds_estimate: s.eta_seconds_estimate,
        cursor: s.cursor?.timestamp,
      },
      `backfill of ${s.table} (alias ${s.alias}): ${s.rows_emitted} rows emitted, ${remaining} remaining, ETA ${eta}`,
    );
  }
}
