/**
 * The newest version of each row the stream built while a re-snapshot runs, so that the snapshot never sends a
 * row older than one the stream already queued: a snapshot page and a streaming page may be in flight together,
 * and the older version arriving last would leave the topic (and a compacted topic for good) at a stale value.
 * A version is (timestamp, mod count) as the row's `sys_updated_on` and `sys_mod_count` say.
 *
 * Only rows changed during the snapshot are kept, and only while one runs.
 */
import type { SourceRecord } from "../../connect/record.ts";
import type { TableRow } from "../../instance/mod.ts";
import { rawValueOf } from "../display_value.ts";

export interface RowVersion {
  readonly epochMs: number;
  readonly modCount: number;
}

export class StreamedVersions {
  #newest: Map<string, RowVersion> | null = null;

  /** `modCountField`: the table's `svc.table.<alias>.mod.count.field`. */
  constructor(private readonly modCountField: string) {}

  /** A row's version. */
  versionOf(row: TableRow, epochMs: number): RowVersion {
    return { epochMs, modCount: Number(rawValueOf(row[this.modCountField]) ?? 0) || 0 };
  }

  /** The record builder's observer: notes each record the stream builds while a snapshot runs. */
  observe(record: SourceRecord, row: TableRow): void {
    if (this.#newest === null || typeof record.key !== "string" || record.timestamp === null) return;
    this.note(record.key, this.versionOf(row, record.timestamp));
  }

  /** A snapshot starts: versions are kept from now on. */
  open(): void {
    this.#newest = new Map();
  }

  /** The snapshot ended: nothing is kept. */
  close(): void {
    this.#newest = null;
  }

  /** The stream built a record of `sysId` at `version`. */
  note(sysId: string, version: RowVersion): void {
    const newest = this.#newest;
    if (newest === null) return;
    const known = newest.get(sysId);
    if (known === undefined || isNewer(version, known)) newest.set(sysId, version);
  }

  /** Whether the stream built a newer version of `sysId` than `version` since the snapshot started. */
  supersedes(sysId: string, version: RowVersion): boolean {
    const known = this.#newest?.get(sysId);
    return known !== undefined && isNewer(known, version);
  }
}

function isNewer(a: RowVersion, b: RowVersion): boolean {
  return a.epochMs > b.epochMs || (a.epochMs === b.epochMs && a.modCount > b.modCount);
}
