/**
 * Where a source table stands, as a source task reports it to the runtime (and `GET /connectors/<name>/tables`
 * shows it, with the task id added). Field names are the REST body's (snake_case, as Kafka Connect's bodies are).
 */
export type TablePhase = "backfill" | "streaming";

export interface TableProgress {
  /** The `svc.table.<alias>` key. */
  alias: string;
  /** Table or database view name. */
  table: string;
  /** `backfill` until the first sweep of this run reaches the instance's present, then `streaming`. */
  phase: TablePhase;
  /** Records built from rows by this task since it started. */
  rows_emitted: number;
  /** The cursor: the last row handled, or null before the first one. */
  cursor: { timestamp: string; sys_id: string } | null;
  /**
   * How stale the topic may be, in seconds. Streaming: the time since the last sweep that proved the table caught
   * up began (every row up to the instance clock minus the safety lag at that moment was read), so 0 to about one
   * poll interval on a healthy table, busy or idle. Backfill: instance clock minus the cursor's timestamp (a row
   * changed after the cursor's time may not be in the topic yet); null before the first row.
   */
  lag_seconds: number | null;
  /**
   * What `lag_seconds` plus the safety lag stays within on a healthy streaming table: the poll interval the
   * poll scheduler gives the table (src/source/poll_scheduler.ts) + the safety lag.
   */
  expected_staleness_seconds: number;
  /**
   * During backfill, readable rows after the cursor: the Aggregate API's count with the cursor's query (taken
   * before access control) scaled by the readable share the pages showed (readable rows ÷ rows before access
   * control), less what was emitted since; null when the user may not call that API, while streaming, before the
   * first count, or while the pages showed no readable row yet.
   */
  rows_remaining: number | null;
  /**
   * During backfill, an estimate: rows_remaining over the smoothed emit rate (rate_estimate.ts); null until the
   * rate was measured for 10 s over two pages, or when rows_remaining is unknown.
   */
  eta_seconds_estimate: number | null;
  /** The latest table-level failure (redacted) and when it happened; null when none. */
  last_error: { message: string; at: string } | null;
  /** The latest warning about the table's data (the instance went back in time) and when; null when none. */
  warning?: { message: string; at: string } | null;
  /** Background reconcile passes (src/source/reconcile/); absent when they are off. */
  reconcile?: ReconcileProgress;
  /** The table's latest re-snapshot (src/source/snapshot/), running or ended; absent before the first one. */
  snapshot?: SnapshotProgress;
}

/** What a re-snapshot was asked for (`POST /connectors/<name>/tables/<alias>/snapshot`). */
export interface SnapshotRequest {
  /** Named by the main thread; every record of the snapshot carries it in the `tablesync.snapshot` header. */
  readonly id: string;
  /** An encoded query ANDed with the table's own (`svc.table.<alias>.query`); "" = every row. */
  readonly query: string;
}

/** Where a table's re-snapshot stands. */
export interface SnapshotProgress {
  id: string;
  query: string;
  /** ISO 8601. */
  started_at: string;
  /** ISO 8601; null while it runs. */
  ended_at: string | null;
  /** Records queued for Kafka. */
  rows_sent: number;
  /** Sys id ranges read to their end, of all. */
  ranges_done: number;
  ranges: number;
  state: "running" | "done" | "failed";
  /** Why it failed; null otherwise. */
  reason: string | null;
}

/** Where a table's reconcile passes stand. */
export interface ReconcileProgress {
  /**
   * When the last pass that found the topic equal to the table (after its repairs) began (ISO 8601); null
   * before the first one ended.
   */
  verified_through: string | null;
  /** The last finished pass: when it ended, rows compared, repairs by kind. */
  last_pass: { ended_at: string; rows_compared: number; repairs: Record<string, number> } | null;
  /**
   * The pass running now: the range of sys ids its current window starts in (ranges done before it) of all, and
   * the rows compared so far; null between passes.
   */
  running: { ranges_done: number; ranges: number; rows_compared: number } | null;
}
