/**
 * Time going backwards. A clone over the instance or a restore from backup rolls tables back: the table's cursor
 * is then ahead of every row, and nothing else says so. Two signs are watched, both cheap:
 *
 * - a rollback: a sweep from the overlap before the cursor found no row at all (count 0), although the row at
 *   the cursor, or its newer version, is normally there; then one request reads that row (by sys_id, outside
 *   the table's query). Back at a version more than `svc.source.time.backwards.seconds` older than the cursor:
 *   the table went back. Gone, while the table's newest row is that far older (a second request): deleted, or
 *   removed by a rollback, which cannot be told apart, so this is a warning only. Asked once per cursor
 *   position: an idle table whose last row was deleted pays one or two requests, not one per poll;
 * - the instance clock jumped back: a sweep's first response carried a `Date` that far behind the instance's
 *   reading before it (high_water.ts already refuses such a page).
 *
 * Either logs a warning naming the likely cause, shows it as the table's warning (progress), counts
 * `tablesync_source_time_backwards_total{cause}`, and reacts per `svc.source.time.backwards.policy`: warn only,
 * reconcile (read the table again from its start timestamp) or restart (the cursor at the instance's present).
 */
import type { SourceTaskContext } from "../connect/task_api.ts";
import { condition, EncodedQuery, type TableClient } from "../instance/mod.ts";
import type { Cursor } from "./cursor.ts";
import { formatGlideDateTime } from "./glide_timestamp.ts";
import { readRowCursor } from "./row_cursor.ts";
import type { SourceSettings, TableSettings } from "./settings.ts";

/** What the poller does: nothing, read the table from its start, or move its cursor. */
export type TimeBackwardsAction =
  | { readonly kind: "none" }
  | { readonly kind: "reconcile" }
  | { readonly kind: "restart"; readonly cursor: Cursor };

const NONE: TimeBackwardsAction = { kind: "none" };

export interface TimeBackwardsOptions {
  readonly table: TableSettings;
  readonly source: SourceSettings;
  readonly client: TableClient;
  readonly context: SourceTaskContext;
  readonly signal: AbortSignal;
  /** Told the warning, to show with the table's progress. */
  readonly warned?: (message: string) => void;
}

export class TimeBackwards {
  /** The cursor whose newest row was already asked for (`timestamp|sys_id`). */
  #checked: string | null = null;
  /** The instance time the clock last jumped back to. */
  #jumpedTo: number | null = null;

  constructor(private readonly o: TimeBackwardsOptions) {}

  get #farMs(): number {
    return this.o.source.timeBackwards.seconds * 1000;
  }

  /**
   * A sweep from the overlap before `cursor` counted no row: asks for the table's newest row once per cursor
   * position and reacts when it lies far below the cursor. `presentMs`: the instance clock now.
   */
  async emptySweep(cursor: Cursor | null, presentMs: number): Promise<TimeBackwardsAction> {
    // No cursor, or one the restart policy set at the instance's present (no row there to ask about; a quiet
    // table's newest row is older than the present, which is no sign of anything).
    if (cursor === null || cursor.sysId === "") return NONE;
    const key = `${cursor.timestamp}|${cursor.sysId}`;
    if (this.#checked === key) return NONE;
    const t = this.o.table;
    // The cursor's own row, outside the table's query (a row that changed out of it moved forward, not back).
    const at = await this.#first(condition(t.sysIdField, "=", cursor.sysId), "asc");
    const far =
      `more than ${this.o.source.timeBackwards.seconds} s before the table's cursor (${cursor.timestamp})`;
    if (at !== null) {
      this.#checked = key;
      if (cursor.epochMs - at.epochMs <= this.#farMs) return NONE;
      return this.#react(
        "rollback",
        `the row at the table's cursor (${cursor.sysId}) is back at ${at.timestamp}, ${far}: the instance went ` +
          "back in time, most likely a clone over it or a restore from backup",
        this.#present(presentMs),
      );
    }
    const newest = await this.#first(condition(t.timestampField, "ISNOTEMPTY"), "desc");
    this.#checked = key;
    if (newest !== null && cursor.epochMs - newest.epochMs <= this.#farMs) return NONE;
    // Gone: deleted, or removed by a rollback; a deletion is common enough that only a warning is given.
    this.#warn(
      "rollback",
      `the row at the table's cursor (${cursor.sysId}) is gone and ${
        newest === null ? "the table has no rows" : `the table's newest row is of ${newest.timestamp}`
      }, ${far}: it was deleted, or the instance went back in time (a clone over it or a restore from backup); ` +
        "nothing is done until a row at the cursor shows an older version (run tablesync verify)",
    );
    return NONE;
  }

  /**
   * A sweep's first response said the instance clock is at `instantMs`, behind the mark it expected; `lastMs` is
   * the instance's own reading before that request (a `Date` header, never carried forward on the local clock,
   * so that the host's clock stepping forward is not taken for the instance's going back).
   */
  clockBehind(lastMs: number, instantMs: number): TimeBackwardsAction {
    const behind = lastMs - instantMs;
    if (behind <= this.#farMs) return NONE;
    // One jump, told once: the pages read ahead before it was seen may show it again.
    if (this.#jumpedTo !== null && Math.abs(instantMs - this.#jumpedTo) <= this.#farMs) return NONE;
    this.#jumpedTo = instantMs;
    return this.#react(
      "clock",
      `the instance clock went back ${Math.round(behind / 1000)} s (now ${
        formatGlideDateTime(instantMs)
      }): ` +
        "most likely a clone over the instance or a restore from backup",
      this.#present(instantMs),
    );
  }

  #present(instantMs: number): Cursor {
    const epochMs = Math.floor(instantMs / 1000) * 1000 - this.o.source.safetyLagSeconds * 1000;
    return { timestamp: formatGlideDateTime(epochMs), sysId: "", epochMs };
  }

  #react(cause: "rollback" | "clock", what: string, present: Cursor): TimeBackwardsAction {
    const { table, source } = this.o;
    const policy = source.timeBackwards.policy;
    const reaction = policy === "warn"
      ? "nothing else is done (svc.source.time.backwards.policy=warn)"
      : policy === "reconcile"
      ? `the table is read again from ${table.startTimestamp}, every row sent at its present version`
      : `the table's cursor restarts at the instance's present (${present.timestamp})`;
    this.#warn(cause, `${what}; ${reaction}`);
    if (policy === "reconcile") return { kind: "reconcile" };
    if (policy === "restart") return { kind: "restart", cursor: present };
    return NONE;
  }

  #warn(cause: "rollback" | "clock", what: string): void {
    const { table, source, context } = this.o;
    const message = `${table.table} (${table.alias}): ${what}`;
    context.logger.warn({
      table: table.table,
      alias: table.alias,
      cause,
      policy: source.timeBackwards.policy,
    }, message);
    context.metrics.increment("tablesync_source_time_backwards_total", {
      table: table.table,
      alias: table.alias,
      cause,
    });
    this.o.warned?.(message);
  }

  /** The first row of the whole table (not the table's query) matching `term`, by timestamp; null when none. */
  async #first(term: string, direction: "asc" | "desc"): Promise<Cursor | null> {
    const t = this.o.table;
    const query = EncodedQuery.parse("").and(term).orderBy(t.timestampField, direction)
      .orderBy(t.sysIdField, direction).toString();
    const page = await this.o.client.list(t.table, {
      query,
      limit: 1,
      fields: [t.sysIdField, t.timestampField],
      queryNoDomain: !t.queryDomain,
      signal: this.o.signal,
    });
    const row = page.rows[0];
    if (row === undefined) return null;
    const rc = readRowCursor(row, t.timestampField, t.sysIdField);
    return rc.ok ? rc.cursor : null;
  }
}
