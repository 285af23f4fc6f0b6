/**
 * A small least-recently-used cache (Kafka's `LRUCache`), used for JsonConverter's schema caches and the schema
 * registry client's requests.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      // Re-insert to mark as most recently used (Map keeps insertion order).
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.capacity) {
      this.#entries.delete(this.#entries.keys().next().value as K);
    }
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }
}
