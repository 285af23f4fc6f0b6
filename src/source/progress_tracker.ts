/**
 * Where one table stands (TableProgress): the poller tells it what each step emitted and whether the sweep reached
 * the present (then the table is streaming), and what failed; the progress reporter asks it to recount the rows
 * still to read during backfill (the Aggregate API's count of the base query after the cursor) and snapshots it.
 *
 * The estimate between counts is the last count less what was emitted since; the rate is measured over the last
 * RATE_WINDOW_MS of steps, so the ETA follows the current pace rather than the average since start.
 */
import type { TablePhase, TableProgress } from "../connect/table_progress.ts";
import { condition, EncodedQuery, keysetAfter } from "../instance/mod.ts";
import { redact } from "../observability/redact.ts";
import type { Cursor } from "./cursor.ts";
import type { InstanceTimeSource } from "./instance_time.ts";
import type { TableSettings } from "./settings.ts";

/** Steps older than this do not count towards the emit rate. */
const RATE_WINDOW_MS = 60_000;

/** Counts rows matching an encoded query: a number, or null when the count is not available to this user. */
export type RowCounter = (query: string) => Promise<number | null>;

/** What a table poller tells about its steps (progress, and the delete horizon of deletion capture). */
export interface StepObserver {
  /** After a step's records were queued: records emitted, the cursor now, and whether the sweep ended. */
  stepped(emitted: number, cursor: Cursor | null, sweepEnded: boolean): void;
  /** A table-level failure (the poller backs off). */
  failed(error: Error): void;
}

interface Sample {
  at: number;
  emitted: number;
}

export class ProgressTracker implements StepObserver {
  #phase: TablePhase = "backfill";
  #emitted = 0;
  #cursor: Cursor | null;
  #lastError: TableProgress["last_error"] = null;
  #samples: Sample[] = [];
  /** The last count and the emitted total when it was taken. */
  #counted: { remaining: number; emitted: number } | null = null;
  /** false once the Aggregate API answered "not available": it is not asked again. */
  #countable = true;
  readonly #base: EncodedQuery;

  constructor(
    readonly table: TableSettings,
    committed: Cursor | null,
    private readonly clock: InstanceTimeSource,
    private readonly now: () => number = Date.now,
  ) {
    this.#cursor = committed;
    this.#base = EncodedQuery.parse(table.query);
  }

  get phase(): TablePhase {
    return this.#phase;
  }

  /** After a poller step: records emitted, the cursor now, and whether the sweep reached the present. */
  stepped(emitted: number, cursor: Cursor | null, caughtUp: boolean): void {
    this.#emitted += emitted;
    this.#cursor = cursor;
    const at = this.now();
    this.#samples.push({ at, emitted: this.#emitted });
    while (this.#samples.length > 2 && this.#samples[0].at < at - RATE_WINDOW_MS) this.#samples.shift();
    if (caughtUp) this.#phase = "streaming";
  }

  failed(error: Error): void {
    this.#lastError = { message: redact(error.message), at: new Date(this.now()).toISOString() };
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

  /** Rows per second over the recent steps; null before two steps apart in time. */
  rate(): number | null {
    const first = this.#samples[0];
    const last = this.#samples[this.#samples.length - 1];
    if (!first || last.at <= first.at) return null;
    return (last.emitted - first.emitted) / ((last.at - first.at) / 1000);
  }

  snapshot(): TableProgress {
    const backfill = this.#phase === "backfill";
    const remaining = backfill && this.#counted
      ? Math.max(0, this.#counted.remaining - (this.#emitted - this.#counted.emitted))
      : null;
    const rate = this.rate();
    const instantMs = this.clock.estimate();
    return {
      alias: this.table.alias,
      table: this.table.table,
      phase: this.#phase,
      rows_emitted: this.#emitted,
      cursor: this.#cursor && { timestamp: this.#cursor.timestamp, sys_id: this.#cursor.sysId },
      lag_seconds: this.#cursor && instantMs !== null
        ? Math.max(0, Math.round((instantMs - this.#cursor.epochMs) / 1000))
        : null,
      rows_remaining: remaining,
      eta_seconds: remaining === null
        ? null
        : remaining === 0
        ? 0
        : rate
        ? Math.round(remaining / rate)
        : null,
      last_error: this.#lastError,
    };
  }
}
