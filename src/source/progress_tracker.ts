/**
 * Where one table stands (TableProgress): the poller tells it what each step emitted, whether the step proved the
 * table caught up (then the table is streaming, and the topic's staleness is measured from that proof), what its
 * pages passed before and after access control (the readable share), and what failed; the progress reporter asks
 * it to recount the rows still to read during backfill (the Aggregate API's count of the base query after the
 * cursor) and snapshots it.
 *
 * The estimate between counts is the last count scaled by the readable share, less what was emitted since; the
 * ETA divides it by a smoothed rate (rate_estimate.ts).
 */
import type {
  ReconcileProgress,
  SnapshotProgress,
  TablePhase,
  TableProgress,
} from "../connect/table_progress.ts";
import { condition, EncodedQuery, keysetAfter } from "../instance/mod.ts";
import { redact } from "../observability/redact.ts";
import type { Cursor } from "./cursor.ts";
import type { InstanceTimeSource } from "./instance_time.ts";
import { RateEstimate } from "./rate_estimate.ts";
import type { TableSettings } from "./settings.ts";

/** Counts rows matching an encoded query: a number, or null when the count is not available to this user. */
export type RowCounter = (query: string) => Promise<number | null>;

/** What a table poller tells about its steps (progress, and the delete horizon of deletion capture). */
export interface StepObserver {
  /**
   * After a step's records were queued: records emitted, the cursor now, and whether the step ended a sweep at its
   * high-water mark (the table caught up); `sweepStartedAt` (local ms) is when that sweep fixed its mark.
   */
  stepped(emitted: number, cursor: Cursor | null, sweepEnded: boolean, sweepStartedAt?: number): void;
  /** What a page passed: rows before access control (partly estimated) and readable rows. */
  scanned?(raw: number, readable: number): void;
  /** A table-level failure (the poller backs off). */
  failed(error: Error): void;
  /** The wait before the table's next poll, as the poll scheduler set it (poll_scheduler.ts). */
  scheduled?(intervalMs: number): void;
  /** A warning about the table's data (time_backwards.ts). */
  warned?(message: string): void;
}

export class ProgressTracker implements StepObserver {
  #phase: TablePhase = "backfill";
  #emitted = 0;
  #cursor: Cursor | null;
  #lastError: TableProgress["last_error"] = null;
  #warning: TableProgress["warning"] = null;
  /** Where the table's reconcile passes stand (reconcile/reconcile_pass.ts), when they run. */
  reconcile: (() => ReconcileProgress) | null = null;
  /** The table's latest re-snapshot (snapshot/table_snapshot.ts), when it has one. */
  resnapshot: (() => SnapshotProgress | null) | null = null;
  readonly #rate = new RateEstimate();
  /** The last count (before access control) and the emitted total when it was taken. */
  #counted: { remaining: number; emitted: number } | null = null;
  /** false once the Aggregate API answered "not available": it is not asked again. */
  #countable = true;
  /** Rows the pages passed, before access control and readable. */
  #raw = 0;
  #readable = 0;
  /** When (local ms) the last sweep that proved the table caught up fixed its mark. */
  #caughtUpAt: number | null = null;
  readonly #base: EncodedQuery;
  /** The poll interval the scheduler gives the table (the configured one until it says otherwise). */
  #intervalMs: number;

  constructor(
    readonly table: TableSettings,
    committed: Cursor | null,
    private readonly clock: InstanceTimeSource,
    private readonly now: () => number = Date.now,
    private readonly safetyLagSeconds = 0,
  ) {
    this.#cursor = committed;
    this.#base = EncodedQuery.parse(table.query);
    this.#intervalMs = table.pollIntervalMs;
  }

  get phase(): TablePhase {
    return this.#phase;
  }

  stepped(emitted: number, cursor: Cursor | null, caughtUp: boolean, sweepStartedAt?: number): void {
    this.#emitted += emitted;
    this.#cursor = cursor;
    this.#rate.sample(this.now(), this.#emitted);
    if (caughtUp) {
      this.#phase = "streaming";
      this.#caughtUpAt = sweepStartedAt ?? this.now();
    }
  }

  scanned(raw: number, readable: number): void {
    this.#raw += raw;
    this.#readable += readable;
  }

  scheduled(intervalMs: number): void {
    this.#intervalMs = intervalMs;
  }

  failed(error: Error): void {
    this.#lastError = { message: redact(error.message), at: new Date(this.now()).toISOString() };
  }

  warned(message: string): void {
    this.#warning = { message: redact(message), at: new Date(this.now()).toISOString() };
  }

  /** Readable rows ÷ rows before access control, of the pages so far (1 before any page). */
  readableShare(): number {
    return this.#raw === 0 ? 1 : Math.min(1, this.#readable / this.#raw);
  }

  /** Rows after the cursor (or from the start timestamp): what the backfill still has to read. */
  remainingQuery(): string {
    const t = this.table;
    const lower = this.#cursor === null
      ? condition(t.timestampField, ">=", t.startTimestamp)
      : keysetAfter(t.timestampField, this.#cursor.timestamp, t.sysIdField, this.#cursor.sysId);
    return this.#base.and(lower).toString();
  }

  /** Recounts the remaining rows during backfill, unless the count proved unavailable. */
  async recount(counter: RowCounter): Promise<void> {
    if (this.#phase !== "backfill" || !this.#countable) return;
    const emitted = this.#emitted;
    const remaining = await counter(this.remainingQuery());
    if (remaining === null) this.#countable = false;
    else this.#counted = { remaining, emitted };
  }

  /** Rows per second, smoothed; null until measured long enough. */
  rate(): number | null {
    return this.#rate.rate(this.now());
  }

  snapshot(): TableProgress {
    // Pages that showed no readable row yet (a hidden head) say nothing of the rest: unknown, not "0 left".
    const backfill = this.#phase === "backfill" && !(this.#raw > 0 && this.#readable === 0);
    const remaining = backfill && this.#counted
      ? Math.max(
        0,
        Math.round(this.#counted.remaining * this.readableShare()) - (this.#emitted - this.#counted.emitted),
      )
      : null;
    const rate = this.rate();
    const snapshot = this.resnapshot?.() ?? null;
    return {
      alias: this.table.alias,
      table: this.table.table,
      phase: this.#phase,
      rows_emitted: this.#emitted,
      cursor: this.#cursor && { timestamp: this.#cursor.timestamp, sys_id: this.#cursor.sysId },
      lag_seconds: this.#lag(),
      expected_staleness_seconds: Math.ceil(this.#intervalMs / 1000) + this.safetyLagSeconds,
      rows_remaining: remaining,
      eta_seconds_estimate: remaining === null
        ? null
        : remaining === 0
        ? 0
        : rate
        ? Math.round(remaining / rate)
        : null,
      last_error: this.#lastError,
      warning: this.#warning,
      ...(this.reconcile ? { reconcile: this.reconcile() } : {}),
      ...(snapshot ? { snapshot } : {}),
    };
  }

  /** See TableProgress.lag_seconds. */
  #lag(): number | null {
    if (this.#phase === "streaming" && this.#caughtUpAt !== null) {
      return Math.max(0, Math.round((this.now() - this.#caughtUpAt) / 1000));
    }
    const instantMs = this.clock.estimate();
    if (this.#cursor === null || instantMs === null) return null;
    return Math.max(0, Math.round((instantMs - this.#cursor.epochMs) / 1000));
  }
}
