/**
 * How values of each dictionary type compare, shared by conditions and ORDERBY so that a keyset predicate
 * (`sys_id>S`) and the sort order always agree.
 *
 * - integer: numerically; date-times, dates and durations: as UTC instants (epoch seconds);
 * - GUID (sys_id): byte-wise, like the database's key;
 * - everything else (strings, choices, booleans, references): case-insensitively, like the instance's
 *   default case-insensitive collation.
 * Empty values behave like SQL NULL: they sort first ascending and only match ISEMPTY, EMPTYSTRING,
 * ANYTHING and `=` with an empty value.
 */
import type { FieldType } from "../schema/fields.ts";

export type ValueKind = "number" | "time" | "binary" | "text";

export function kindOf(type: FieldType): ValueKind {
  switch (type) {
    case "integer":
      return "number";
    case "glide_date_time":
    case "glide_date":
    case "glide_duration":
      return "time";
    case "GUID":
      return "binary";
    default:
      return "text";
  }
}

export function compareText(a: string, b: string): number {
  const x = a.toLowerCase(), y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

export function compareBinary(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareNumber(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
