/**
 * `svc.table.<alias>.display.value`: what is asked on the wire and how rows are reshaped.
 *
 * - `false`: raw values, asked as `false`, rows kept as returned.
 * - `all`: asked as `all`, rows kept as returned (every field `{value, display_value[, link]}`).
 * - `true`: asked as `all`, then every field is replaced by its display value, except the fields kept raw (the
 *   cursor fields, so the cursor stays parseable, and in typed mode the typed fields, since a display value such
 *   as "2 - High" cannot be typed). The shape is flat whatever `exclude.reference.link` says: a reference is its
 *   display value, its link is dropped (the flat shape is what `true` promises; use `all` to keep links).
 */
import { isPlainObject } from "../common/plain_object.ts";
import type { DisplayValue, TableRow } from "../instance/mod.ts";

/** The `sysparm_display_value` sent for a configured display value. */
export function wireDisplayValue(configured: DisplayValue): DisplayValue {
  return configured === "false" ? "false" : "all";
}

/** A field value that is not a scalar: a `{value, display_value}` object, or an array (taken as one too, as
 * before: its `value` is undefined). Rows come from JSON, so no other kind of object reaches here. */
function isObject(v: unknown): v is Record<string, unknown> {
  return isPlainObject(v) || Array.isArray(v);
}

/** The raw value of a field as returned under any display mode (`{value}` objects unwrapped). */
export function rawValueOf(v: unknown): unknown {
  return isObject(v) ? v.value : v;
}

/**
 * Reshapes a row fetched as `all` into the `true` shape. One new object per row: the only copy display values
 * cost, and only in this mode.
 */
export function toDisplayShape(row: TableRow, keepRaw: ReadonlySet<string>): TableRow {
  const out: TableRow = {};
  for (const name in row) {
    const v = row[name];
    if (!isObject(v)) out[name] = v;
    else if (keepRaw.has(name)) out[name] = v.value;
    else out[name] = v.display_value;
  }
  return out;
}
