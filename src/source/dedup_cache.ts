/**
 * The per-table cache of emitted row versions (timestamp, sys id, sys_mod_count). Overlap re-reads find the rows
 * they already emitted here and suppress them; a row updated since has a new version and passes.
 *
 * Bounded by `svc.source.dedup.window.records`: the oldest entries are dropped first (a Set iterates in
 * insertion order, so eviction is O(1)). The cache lives for the run only: after a restart the overlap is
 * delivered again (at-least-once).
 */
export class DedupCache {
  readonly #versions = new Set<string>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`dedup window must be at least 1, got ${capacity}`);
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

  /** Remembers a version, dropping the oldest one when full. */
  add(key: string): void {
    if (this.#versions.has(key)) return;
    if (this.#versions.size >= this.capacity) {
      const oldest = this.#versions.values().next().value;
      if (oldest !== undefined) this.#versions.delete(oldest);
    }
    this.#versions.add(key);
  }
}
