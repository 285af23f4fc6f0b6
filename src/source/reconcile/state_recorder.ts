/**
 * Writes the reconcile state as the topic changes: each row record the table's record builder makes is noted with
 * its version and digest, and once the record is in its topic for good (the task's `whenCommitted`: Kafka's ack,
 * or exactly-once its transaction's commit), its entry is written to the state topic; a tombstone deletes the
 * entry. Only records are noted, never rows: the note is a few dozen bytes held until then.
 */
import type { SourceRecord } from "../../connect/record.ts";
import type { StateTopic } from "../../connect/state_topic.ts";
import type { Logger } from "../../observability/log.ts";
import type { TableRow } from "../../instance/mod.ts";
import { rawValueOf } from "../display_value.ts";
import { valueDigest } from "./digest.ts";
import { encodeEntry, rangeOf, type StateEntry, stateKey } from "./state_entry.ts";
import { PassRecords } from "./pass_record.ts";

/**
 * Entries queued or in flight above which the task's poll first waits for Kafka to acknowledge them: the entries
 * follow the records' acks, so without a bound a backfill faster than the state writes would queue them in memory.
 */
const BACKLOG_MAX = 20_000;

export class StateRecorder {
  readonly #notes = new WeakMap<SourceRecord, StateEntry>();
  /** Table identity by the topic its records are built for. */
  readonly #tables = new Map<string, string>();

  /** Where each table's passes stand (pass_record.ts), in the same topic. */
  readonly passes: PassRecords;

  constructor(readonly state: StateTopic) {
    this.passes = new PassRecords(state);
  }

  /** A table's identity in the state: the connector and the topic whose latest state the entries mirror. */
  static tableId(connector: string, topic: string): string {
    return `${connector}/${topic}`;
  }

  addTable(topic: string, tableId: string): void {
    this.#tables.set(topic, tableId);
  }

  /** The entry of a row's record (its version, and the digest of the value built for it). */
  static entryOf(
    row: TableRow,
    record: SourceRecord,
    timestampField: string,
    modCountField: string,
  ): StateEntry {
    return {
      u: String(rawValueOf(row[timestampField]) ?? ""),
      m: String(rawValueOf(row[modCountField]) ?? ""),
      d: valueDigest(record.value),
    };
  }

  note(record: SourceRecord, entry: StateEntry): void {
    this.#notes.set(record, entry);
  }

  /** What to do once `record` is in its topic for good, or null for a record that does not change the state. */
  committed(record: SourceRecord): (() => void) | null {
    const tableId = this.#tables.get(record.topic);
    if (tableId === undefined || typeof record.key !== "string") return null;
    const sysId = record.key;
    const entry = this.#notes.get(record);
    if (entry === undefined && record.value !== null) return null;
    return () => this.write(tableId, sysId, entry ?? null);
  }

  /**
   * Waits while more than BACKLOG_MAX entries wait for Kafka (the source task's poll calls it first). A failed
   * write costs the next pass a repair (the rows sent again as missing), not the stream: it is logged, not thrown.
   */
  async caughtUp(log: Pick<Logger, "warn">): Promise<void> {
    if (this.state.backlog() <= BACKLOG_MAX) return;
    await this.state.flush().catch((error) => {
      const reason = error instanceof Error ? error.message : String(error);
      log.warn(
        { error: reason },
        `reconcile state entries were not written (${reason}); the next pass sends those rows again as missing`,
      );
    });
  }

  /** Writes a row's entry (null deletes it). */
  write(tableId: string, sysId: string, entry: StateEntry | null): void {
    const value = entry === null ? null : encodeEntry(entry);
    this.state.write([{ partition: rangeOf(sysId), key: stateKey(tableId, sysId), value }]);
  }
}
