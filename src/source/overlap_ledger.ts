/**
 * The row versions a table sent inside its overlap window, carried across a graceful stop so that the next run
 * does not send them again.
 *
 * A restarted table re-reads `svc.source.overlap.seconds` before its committed cursor (and the cursor's own
 * second) to catch rows that arrived late; with an empty dedup cache it would send that whole window again. So
 * on a graceful stop (shutdown, or a worker group moving the task) the final committed offset carries the
 * versions Kafka acknowledged inside that window (`overlap_sent`: the dedup keys `timestamp|sys_id|sys_mod_count`
 * as a JSON array in a string, because Connect's offsets hold primitive values only). The next run seeds its dedup
 * cache with them: the re-read finds them already sent, and a late row, absent from the list, is still sent.
 *
 * Deletion capture has a ledger of its own, for the audit rows of its delete partition: an audit row becomes
 * several records (the envelope's delete record, the tombstone, the row as it is now), and it counts as sent once
 * all of them are acknowledged (`carry`). So a graceful handover sends no tombstone twice either.
 *
 * A parallel backfill re-reads the overlap before each unfinished range's cursor (parallel_backfill.ts), and the
 * streaming cursor that follows it the overlap before its high mark: its final offset lists the versions of those
 * windows (each range's own sys ids, and every range's near the mark).
 *
 * Only acknowledged versions are listed (a version sent but not acknowledged must come again). At least once,
 * only the final graceful commit carries the list: after a crash the overlap is delivered again, as before. With
 * exactly-once, every transaction's offsets carry it (source_transactions.ts), so a crash sends nothing twice. Above
 * MAX_OVERLAP_SENT versions the list is left out (the window is re-delivered, never lost).
 */
import type { SourceOffset, SourceRecord } from "../connect/record.ts";
import { compareCursors, type Cursor, cursorFromOffset } from "./cursor.ts";
import { DedupCache } from "./dedup_cache.ts";
import { backfillFromOffset, type IdRange, inIdRange, splitIdSpace } from "./parallel_backfill.ts";
import { parseGlideDateTime } from "./glide_timestamp.ts";
import { cursorSpelledIn, keySpellsCursor } from "./version_key.ts";
import { VersionSet } from "./version_set.ts";

/** The offset field holding the list. */
export const OFFSET_OVERLAP_SENT = "overlap_sent";
/** Most versions a final offset carries (about 60 bytes each); a larger window is re-delivered instead. */
export const MAX_OVERLAP_SENT = 2000;

/** A version built and not yet acknowledged: it is acknowledged once all of its `records` are. */
interface Unacknowledged {
  readonly version: string;
  readonly cursor: Cursor;
  records: number;
}

/** One table's (or one delete stream's) acknowledged versions near its cursor. */
export class OverlapLedger {
  /** Versions built but not yet acknowledged, by record (several records of one version share its entry). */
  readonly #built = new WeakMap<SourceRecord, Unacknowledged>();
  /**
   * Acknowledged versions in acknowledgement order, at most `capacity` (the oldest dropped first), held packed
   * (version_set.ts). A version's cursor is read back from the version itself (`timestamp|sys_id|…`); only
   * when it cannot be (a cursor not spelled as in its version) is the cursor kept with it.
   */
  readonly #acked: VersionSet<Cursor>;

  constructor(readonly overlapSeconds: number, readonly capacity: number) {
    this.#acked = new VersionSet(capacity);
  }

  /** The poller built `record` for the row version `version` at `cursor`. */
  built(record: SourceRecord, version: string, cursor: Cursor): void {
    this.#built.set(record, { version, cursor, records: 1 });
  }

  /**
   * `record` was built but what goes to Kafka in its place is `records` (an audit row's tombstone and upsert,
   * delete_records.ts): its version counts as sent once every one of them is acknowledged, at once when there
   * are none (nothing of it can be sent again; a later audit row of the same key carries what it stood for).
   */
  carry(record: SourceRecord, records: readonly SourceRecord[]): void {
    const entry = this.#built.get(record);
    if (!entry) return;
    this.#built.delete(record);
    if (records.length === 0) return this.#remember(entry.version, entry.cursor);
    entry.records = records.length;
    for (const r of records) this.#built.set(r, entry);
  }

  /**
   * `record` goes to Kafka: what to call once Kafka acknowledged it (null for a record this ledger did not see
   * built). The callback holds the version and cursor only, not the record.
   */
  whenAcknowledged(record: SourceRecord): (() => void) | null {
    const entry = this.#built.get(record);
    if (!entry) return null;
    this.#built.delete(record);
    return () => {
      if (--entry.records === 0) this.#remember(entry.version, entry.cursor);
    };
  }

  /**
   * The versions an earlier run listed in its final offset: sent already, so listed again while they stay in
   * the window (a run that stops again before its cursor moved on hands them on too).
   */
  seed(versions: readonly string[]): void {
    for (const version of versions) {
      const key = DedupCache.parseVersionKey(version);
      const epochMs = key ? parseGlideDateTime(key.timestamp) : NaN;
      if (key && !Number.isNaN(epochMs)) this.#remember(version, { ...key, epochMs });
    }
  }

  #remember(version: string, cursor: Cursor): void {
    // Deleted first so that a version acknowledged again becomes the newest.
    this.#acked.delete(version);
    this.#acked.add(version, keySpellsCursor(version, cursor) ? undefined : cursor);
  }

  /**
   * The committed offset with the acknowledged versions of its overlap windows: at or before its cursor, at or
   * after the cursor minus the overlap; during a parallel backfill, the window of each unfinished range's cursor
   * (sys ids of that range only). Unchanged when there are none, too many, or it holds no cursor.
   */
  finalOffset(committed: SourceOffset): SourceOffset {
    const windows = this.#windowsOf(committed);
    if (windows.length === 0) return committed;
    const sent: string[] = [];
    this.#acked.forEach((version, kept) => {
      const at = kept ?? cursorSpelledIn(version);
      if (windows.some((w) => w.holds(at))) sent.push(version);
    }, Math.min(...windows.map((w) => w.from)));
    if (sent.length === 0 || sent.length > MAX_OVERLAP_SENT) return committed;
    return { ...committed, [OFFSET_OVERLAP_SENT]: JSON.stringify(sent) };
  }

  /**
   * The windows the next run re-reads from `committed`: the cursor's, or each unfinished backfill range's and the
   * high mark's.
   */
  #windowsOf(committed: SourceOffset): ReadWindow[] {
    const cursor = cursorFromOffset(committed);
    if (cursor !== null) return [this.#window(cursor, null)];
    let backfill;
    try {
      backfill = backfillFromOffset(committed);
    } catch {
      return []; // not ours to judge here: the next run refuses it with the reason
    }
    if (backfill === null) return [];
    const ids = splitIdSpace(backfill.ranges.length);
    const windows = backfill.ranges.flatMap((r, i) =>
      r.cursor !== null && !r.done ? [this.#window(r.cursor, ids[i])] : []
    );
    // The streaming cursor takes over at the backfill's high mark and re-reads the overlap before it, from
    // before the mark's first row: every range's versions there are read again.
    windows.push(
      this.#window({ timestamp: backfill.high.text, sysId: "\uffff", epochMs: backfill.high.epochMs }, null),
    );
    return windows;
  }

  /**
   * A streaming cursor's window reaches past the cursor: a row that came back changed from a page was sent ahead
   * of it (row_handler.ts), and the next run reads it again at that version.
   */
  #window(cursor: Cursor, ids: IdRange | null): ReadWindow {
    const from = cursor.epochMs - this.overlapSeconds * 1000;
    return {
      from,
      holds: (at) =>
        at.epochMs >= from &&
        (ids === null ? true : compareCursors(at, cursor) <= 0 && inIdRange(at.sysId, ids)),
    };
  }
}

/** What a restarted table reads again: rows from `from` (epoch ms) up to a cursor, possibly of one sys id range. */
interface ReadWindow {
  readonly from: number;
  holds(at: Cursor): boolean;
}

/** The versions a committed offset says were sent inside its overlap window (none when absent or malformed). */
export function overlapSentFromOffset(offset: SourceOffset | null): string[] {
  const list = offset?.[OFFSET_OVERLAP_SENT];
  if (typeof list !== "string") return [];
  try {
    const versions: unknown = JSON.parse(list);
    return Array.isArray(versions) ? versions.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}
