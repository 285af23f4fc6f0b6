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
  /** Instance clock minus the cursor's timestamp; null before both are known. */
  lag_seconds: number | null;
  /**
   * During backfill, rows after the cursor (the Aggregate API's count with the cursor's query); null when the
   * user may not call that API, while streaming, or before the first count.
   */
  rows_remaining: number | null;
  /** During backfill, rows_remaining over the recent emit rate; null when either is unknown. */
  eta_seconds: number | null;
  /** The latest table-level failure (redacted) and when it happened; null when none. */
  last_error: { message: string; at: string } | null;
}
