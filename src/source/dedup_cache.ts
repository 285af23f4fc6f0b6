/**
 * The per-table cache of emitted row versions (timestamp, sys id, sys_mod_count). Overlap re-reads find the rows
 * they already emitted here and suppress them; a row updated since has a new version and passes.
 *
 * Bounded by `svc.source.dedup.window.records`: the oldest entries are dropped first. The versions are held packed
 * (version_set.ts: 24 bytes each rather than a 54-character string in a Set, and in insertion order on a ring, so
 * evicting the oldest is a step, not a scan of a Set's deleted entries: evicting through `values().next()` cost a
 * scan of up to the window per row once the window was full, 3.5 s for 150,000 adds to a full window of 50,000).
 * The cache lives for the run only: after a restart the overlap is delivered again (at-least-once), unless a
 * graceful stop handed its versions on (overlap_ledger.ts).
 */
import { VersionSet } from "./version_set.ts";

export class DedupCache {
  readonly #versions: VersionSet;

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`dedup window must be at least 1, got ${capacity}`);
    this.#versions = new VersionSet(capacity);
  }

  static versionKey(timestamp: string, sysId: string, modCount: string): string {
    return `${timestamp}|${sysId}|${modCount}`;
  }

  /** The timestamp and sys id of a `versionKey`; null when `key` is not one. */
  static parseVersionKey(key: string): { timestamp: string; sysId: string } | null {
    const first = key.indexOf("|");
    const last = key.lastIndexOf("|");
    return first < last ? { timestamp: key.slice(0, first), sysId: key.slice(first + 1, last) } : null;
  }

  get size(): number {
    return this.#versions.size;
  }

  has(key: string): boolean {
    return this.#versions.has(key);
  }

  /** Remembers a version, dropping the oldest one when full (one held already stays where it is). */
  add(key: string): void {
    this.#versions.add(key);
  }
}
