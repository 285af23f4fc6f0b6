/**
 * Where a table's reconcile passes stand, kept in the state topic (partition 0, key `<table identity>||pass`) so
 * that it moves with the table: a task that starts (a restart, or a worker group moving the table to another
 * member) reads it once and knows when the next pass is due. Without it every start waited a whole interval
 * again, so a task restarted or moved more often than its interval never ran a pass, and a pass cut short by a
 * move started again only an interval later. The record says when a pass began that has not ended (a pass cut
 * short: the next one is due at once), when the last finished pass began (the next is due one interval after)
 * and what it found.
 */
import type { ReconcileProgress } from "../../connect/table_progress.ts";
import type { StateTopic } from "../../connect/state_topic.ts";

/** The partition of the pass records (that of the seed markers too). */
export const PASS_RECORD_PARTITION = 0;
/** What follows the table identity in a record's key: not a sys id (a sys id holds no `|`). */
const KEY_SUFFIX = "||pass";

export interface PassRecord {
  /** When the pass under way began (ISO 8601); null when none is. */
  readonly running_since: string | null;
  readonly verified_through: ReconcileProgress["verified_through"];
  readonly last_pass: ReconcileProgress["last_pass"];
}

/** The key of a table's pass record: never a row's. */
export function passRecordKey(tableId: string): string {
  return tableId + KEY_SUFFIX;
}

export function encodePassRecord(record: PassRecord): string {
  return JSON.stringify(record);
}

/** A record's value, or null when it is not one. */
export function decodePassRecord(text: string): PassRecord | null {
  try {
    const v = JSON.parse(text);
    const time = (t: unknown) => t === null || (typeof t === "string" && !Number.isNaN(Date.parse(t)));
    if (!time(v?.running_since) || !time(v?.verified_through)) return null;
    const last = v.last_pass;
    const lastOk = last === null ||
      (typeof last === "object" && time(last.ended_at) && typeof last.rows_compared === "number" &&
        typeof last.repairs === "object" && last.repairs !== null);
    return lastOk
      ? { running_since: v.running_since, verified_through: v.verified_through, last_pass: last }
      : null;
  } catch {
    return null;
  }
}

/**
 * Milliseconds from `now` (epoch ms) until the table's next pass is due, given its record and the interval (0:
 * only on demand), or null when the record says nothing (a table that never began a pass: one interval after
 * the task started, as before).
 */
export function dueInMs(record: PassRecord | null, intervalMs: number, now: number): number | null {
  if (record === null) return null;
  if (record.running_since !== null) return 0;
  if (record.verified_through === null || intervalMs <= 0) return null;
  return Math.max(0, Date.parse(record.verified_through) + intervalMs - now);
}

/** The pass records of every table in one state topic, read at most once (the first `get`). */
export class PassRecords {
  readonly #state: StateTopic;
  #read: Promise<Map<string, PassRecord>> | null = null;

  constructor(state: StateTopic) {
    this.#state = state;
  }

  /** The table's record; null when it has none. Rejects when the partition cannot be read. */
  async get(tableId: string): Promise<PassRecord | null> {
    this.#read ??= this.#readAll();
    return (await this.#read).get(passRecordKey(tableId)) ?? null;
  }

  write(tableId: string, record: PassRecord): void {
    this.#state.write([{
      partition: PASS_RECORD_PARTITION,
      key: passRecordKey(tableId),
      value: encodePassRecord(record),
    }]);
  }

  async #readAll(): Promise<Map<string, PassRecord>> {
    const records = new Map<string, PassRecord>();
    await this.#state.readPartition(PASS_RECORD_PARTITION, (key, value) => {
      if (!key.endsWith(KEY_SUFFIX)) return;
      const record = value === null ? null : decodePassRecord(value);
      if (record === null) records.delete(key);
      else records.set(key, record);
    });
    return records;
  }
}
