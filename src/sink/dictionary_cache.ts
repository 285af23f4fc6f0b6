/**
 * The column names of each target table, including those inherited from its ancestors (incident gets task's
 * columns), looked up once per table for the task's lifetime. Concurrent records for one table share one
 * lookup; a failed lookup is not kept, so the next record tries again.
 */
import type { TableDictionary } from "../instance/mod.ts";

/** The dictionary call the cache needs; `TableClient.dictionary` fits. */
export type DictionaryLookup = (table: string, signal?: AbortSignal) => Promise<TableDictionary | null>;

export class DictionaryCache {
  readonly #lookup: DictionaryLookup;
  readonly #columns = new Map<string, Promise<ReadonlySet<string> | null>>();
  readonly #types = new Map<string, Promise<ReadonlyMap<string, string> | null>>();

  constructor(lookup: DictionaryLookup) {
    this.#lookup = lookup;
  }

  /** The table's column names, or null when the table is unknown or its dictionary is not readable. */
  columns(table: string, signal?: AbortSignal): Promise<ReadonlySet<string> | null> {
    const cached = this.#columns.get(table);
    if (cached) return cached;
    const columns = this.#lookup(table, signal).then((dictionary) =>
      dictionary === null ? null : new Set(dictionary.fields.keys())
    );
    this.#columns.set(table, columns);
    columns.catch(() => this.#columns.delete(table));
    return columns;
  }

  /** The table's field types (name → internal type), or null when the dictionary cannot be read. */
  types(table: string, signal?: AbortSignal): Promise<ReadonlyMap<string, string> | null> {
    const cached = this.#types.get(table);
    if (cached) return cached;
    const types = this.#lookup(table, signal).then((dictionary) =>
      dictionary === null ? null : new Map([...dictionary.fields].map(([name, def]) => [name, def.type]))
    );
    this.#types.set(table, types);
    types.catch(() => this.#types.delete(table));
    return types;
  }
}
