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
 * A parallel backfill's offset has no single cursor: each unfinished range resumes from its own cursor minus the
 * overlap, and the streaming cursor takes over at the backfill's high-water mark minus the overlap, so the versions
 * inside any of those windows are listed.
 *
 * Only acknowledged versions are listed (a version sent but not acknowledged must come again), and only the final
 * graceful commit carries the list: after a crash the overlap is delivered again, as before. Above
 * MAX_OVERLAP_SENT versions the list is left out (the window is re-delivered, never lost).
 */
import type { SourceOffset, SourceRecord } from "../connect/record.ts";
import { compareCursors, type Cursor, cursorFromOffset } from "./cursor.ts";
import { DedupCache } from "./dedup_cache.ts";
import { parseGlideDateTime } from "./glide_timestamp.ts";
import { cursorSpelledIn, keySpellsCursor } from "./version_key.ts";
import { VersionSet } from "./version_set.ts";
import { backfillFromOffset } from "./parallel_backfill.ts";

/** The offset field holding the list. */
export const OFFSET_OVERLAP_SENT = "overlap_sent";
/** Most versions a final offset carries (about 60 bytes each); a larger window is re-delivered instead. */
export const MAX_OVERLAP_SENT = 2000;

/** One table's acknowledged versions near its cursor. */
export class OverlapLedger {
  /** Versions built but not yet acknowledged, by record. */
  readonly #built = new WeakMap<SourceRecord, { version: string; cursor: Cursor }>();
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
    this.#built.set(record, { version, cursor });
  }

  /**
   * `record` goes to Kafka: what to call once Kafka acknowledged it (null for a record this ledger did not see
   * built). The callback holds the version and cursor only, not the record.
   */
  whenAcknowledged(record: SourceRecord): (() => void) | null {
    const entry = this.#built.get(record);
    if (!entry) return null;
    this.#built.delete(record);
    return () => this.#remember(entry.version, entry.cursor);
  }

  /**
   * `from` was built, and `to` go to Kafka in its place (deletion capture expands an audit row into its
   * tombstone): the version is remembered once the last of them is acknowledged.
   */
  carry(from: SourceRecord, to: readonly SourceRecord[]): void {
    const entry = this.#built.get(from);
    if (!entry || to.length === 0 || to.includes(from)) return;
    this.#built.delete(from);
    this.#built.set(to[to.length - 1], entry);
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
   * The committed offset with the acknowledged versions of its overlap window (at or before its cursor, at or
   * after the cursor minus the overlap); unchanged when there are none, too many, or it holds no cursor.
   */
  finalOffset(committed: SourceOffset): SourceOffset {
    const cursors = reReadCursors(committed);
    if (cursors.length === 0) return committed;
    const overlapMs = this.overlapSeconds * 1000;
    const from = Math.min(...cursors.map((c) => c.epochMs)) - overlapMs;
    const sent: string[] = [];
    this.#acked.forEach((version, kept) => {
      const at = kept ?? cursorSpelledIn(version);
      const inWindow = (c: Cursor) => at.epochMs >= c.epochMs - overlapMs && compareCursors(at, c) <= 0;
      if (cursors.some(inWindow)) sent.push(version);
    }, from);
    if (sent.length === 0 || sent.length > MAX_OVERLAP_SENT) return committed;
    return { ...committed, [OFFSET_OVERLAP_SENT]: JSON.stringify(sent) };
  }
}

/** Where a restart from `offset` reads again (each minus the overlap): its cursor, or a backfill's range cursors and high mark. */
function reReadCursors(offset: SourceOffset): Cursor[] {
  const cursor = cursorFromOffset(offset);
  if (cursor !== null) return [cursor];
  let backfill;
  try {
    backfill = backfillFromOffset(offset);
  } catch {
    return [];
  }
  if (backfill === null) return [];
  const cursors = backfill.ranges.flatMap((r) => r.cursor && !r.done ? [r.cursor] : []);
  // The high mark's whole second: the streaming cursor re-reads it from before its first row.
  cursors.push({ timestamp: backfill.high.text, sysId: "\uffff", epochMs: backfill.high.epochMs });
  return cursors;
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
