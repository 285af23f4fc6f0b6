/**
 * The per-table cache of emitted row versions (timestamp, sys id, sys_mod_count). Overlap re-reads find the rows
 * they already emitted here and suppress them; a row updated since has a new version and passes.
 *
 * Bounded by `svc.source.dedup.window.records`: the oldest entries are dropped first. The insertion order is kept
 * in a ring of the capacity's size, not read from the Set: a Set's first live entry is found by skipping the
 * entries deleted before it (V8 keeps them as holes until the table is rebuilt), so evicting through
 * `values().next()` cost a scan of up to the window per row once the window was full (measured: 150,000 adds to
 * a full window of 50,000 took 3.5 s that way, 0.1 s with the ring). The cache lives for the run only: after a
 * restart the overlap is delivered again (at-least-once).
 */
export class DedupCache {
  readonly #versions = new Set<string>();
  /** The versions in insertion order; `#oldest` is the next one to drop once the cache is full. */
  readonly #ring: string[] = [];
  #oldest = 0;

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
    this.#versions.add(key);
    if (this.#ring.length < this.capacity) {
      this.#ring.push(key);
      return;
    }
    this.#versions.delete(this.#ring[this.#oldest]);
    this.#ring[this.#oldest] = key;
    this.#oldest = (this.#oldest + 1) % this.capacity;
  }
}
