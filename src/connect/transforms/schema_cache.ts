/**
 * Kafka's `SynchronizedCache<>(new LRUCache<>(16))` of derived schemas, keyed by schema *equality*: converters
 * build a fresh but equal schema object for every record, so an identity-keyed map would miss every time and grow
 * without bound. Lookups try identity first (the common case of a source reusing one schema object).
 */
import { type Schema, schemaEquals } from "../schema.ts";

export class SchemaCache {
  readonly #entries: [Schema, Schema][] = [];

  constructor(private readonly capacity = 16) {}

  /** The cached schema derived from `key`, computing and remembering it on a miss. */
  getOrCompute(key: Schema, compute: (key: Schema) => Schema): Schema {
    let index = this.#entries.findIndex(([k]) => k === key);
    if (index < 0) index = this.#entries.findIndex(([k]) => schemaEquals(k, key));
    if (index >= 0) {
      const entry = this.#entries[index];
      // Move to the most-recently-used end.
      this.#entries.splice(index, 1);
      this.#entries.push(entry);
      return entry[1];
    }
    const derived = compute(key);
    this.#entries.push([key, derived]);
    if (this.#entries.length > this.capacity) this.#entries.shift();
    return derived;
  }

  clear(): void {
    this.#entries.length = 0;
  }
}
