/**
 * The data dictionary of a table: its own columns and those it inherits. A child table's sys_dictionary rows
 * only cover its own columns (incident: 22, task: 66), so the reader walks `sys_db_object.super_class` up to
 * the root and unions the columns, the nearest table winning when a column is redefined.
 *
 * Results are cached per client for `ttlMs`; concurrent lookups of one table share one read.
 */
import { condition, EncodedQuery } from "./encoded_query.ts";
import type { TableRow } from "./table_rows.ts";

export interface FieldDefinition {
  /** Column name (sys_dictionary.element). */
  name: string;
  /** Internal type name: string, integer, boolean, glide_date_time, reference, … */
  type: string;
  /** Table whose dictionary defines the column (the table itself or an ancestor). */
  definedOn: string;
  maxLength: number | null;
  mandatory: boolean;
  /** Referenced table, for reference columns. */
  reference: string | null;
}

export interface TableDictionary {
  table: string;
  /** The table, then its ancestors up to the root (incident, task). */
  hierarchy: string[];
  fields: ReadonlyMap<string, FieldDefinition>;
}

/** The table-list call the reader needs; TableClient.list fits. */
export type DictionaryLister = (
  table: string,
  options: {
    query: string;
    limit: number;
    fields: string[];
    excludeReferenceLink: boolean;
    signal?: AbortSignal;
  },
) => Promise<{ rows: TableRow[] }>;

/** Rows per dictionary page. */
const PAGE = 1000;
/** Deepest table hierarchy followed (guards against a super_class cycle). */
const MAX_DEPTH = 32;

export class DictionaryReader {
  private readonly cache = new Map<string, { value: Promise<TableDictionary | null>; expiresAt: number }>();

  /** @param ttlMs how long a lookup is reused (default 15 minutes). */
  constructor(private readonly list: DictionaryLister, private readonly ttlMs = 15 * 60_000) {}

  /**
   * The dictionary of `table`, or null when the table is unknown or sys_db_object is not readable by the
   * integration user (access control hides rows rather than failing).
   */
  lookup(table: string, signal?: AbortSignal): Promise<TableDictionary | null> {
    const cached = this.cache.get(table);
    if (cached && Date.now() < cached.expiresAt) return cached.value;
    const value = this.read(table, signal);
    this.cache.set(table, { value, expiresAt: Date.now() + this.ttlMs });
    // A failed lookup is not cached.
    value.catch(() => this.cache.delete(table));
    return value;
  }

  /** Drops the cached entry of `table` (e.g. after an unknown-field error, to pick up a new column). */
  invalidate(table: string): void {
    this.cache.delete(table);
  }

  private async read(table: string, signal?: AbortSignal): Promise<TableDictionary | null> {
    const hierarchy = await this.hierarchyOf(table, signal);
    if (hierarchy.length === 0) return null;
    const fields = new Map<string, FieldDefinition>();
    for (const name of hierarchy) {
      for (const row of await this.columnsOf(name, signal)) {
        const element = text(row.element);
        if (element && !fields.has(element)) {
          const maxLength = Number(text(row.max_length));
          fields.set(element, {
            name: element,
            type: text(row.internal_type),
            definedOn: name,
            maxLength: text(row.max_length) !== "" && Number.isFinite(maxLength) ? maxLength : null,
            mandatory: text(row.mandatory) === "true",
            reference: text(row.reference) || null,
          });
        }
      }
    }
    return { table, hierarchy, fields };
  }

  private async hierarchyOf(table: string, signal?: AbortSignal): Promise<string[]> {
    const hierarchy: string[] = [];
    let query = condition("name", "=", table);
    while (hierarchy.length < MAX_DEPTH) {
      const { rows } = await this.list("sys_db_object", {
        query,
        limit: 1,
        fields: ["sys_id", "name", "super_class"],
        excludeReferenceLink: true,
        signal,
      });
      if (rows.length === 0) break;
      const name = text(rows[0].name);
      if (hierarchy.includes(name)) break;
      hierarchy.push(name);
      const parent = text(rows[0].super_class);
      if (!parent) break;
      query = condition("sys_id", "=", parent);
    }
    return hierarchy;
  }

  /** Every column row of one table, paged by sys_id until an empty page (a short page proves nothing). */
  private async columnsOf(table: string, signal?: AbortSignal): Promise<TableRow[]> {
    const all: TableRow[] = [];
    let after: string | null = null;
    for (;;) {
      const terms = [condition("name", "=", table), condition("element", "ISNOTEMPTY")];
      if (after !== null) terms.push(condition("sys_id", ">", after));
      const { rows } = await this.list("sys_dictionary", {
        query: EncodedQuery.all().and(...terms).orderBy("sys_id").toString(),
        limit: PAGE,
        fields: ["sys_id", "element", "internal_type", "max_length", "mandatory", "reference"],
        excludeReferenceLink: true,
        signal,
      });
      if (rows.length === 0) return all;
      all.push(...rows);
      after = text(rows[rows.length - 1].sys_id);
    }
  }
}

/** A field value as text: plain strings, or the `value` of a reference/display object. */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "value" in value) {
    return String((value as { value: unknown }).value ?? "");
  }
  return value === null || value === undefined ? "" : String(value);
}
