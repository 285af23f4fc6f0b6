/**
 * Reads a row's cursor (timestamp field, sys id field) from the raw values, whatever the display mode. A row
 * whose cursor is missing or unparseable is a bad row: it cannot be ordered, deduplicated or paged past.
 */
import type { TableRow } from "../instance/mod.ts";
import type { Cursor } from "./cursor.ts";
import { rawValueOf } from "./display_value.ts";
import { parseGlideDateTime } from "./glide_timestamp.ts";

export type RowCursor =
  | { readonly ok: true; readonly cursor: Cursor }
  | { readonly ok: false; readonly field: string; readonly reason: string; readonly sysId: string | null };

/**
 * A sys id must be a non-empty string that an encoded query can carry: `^` would split the query, `,` and
 * whitespace or control characters cannot be compared reliably. Checked by char codes (hot path).
 */
function isUsableSysId(id: string): boolean {
  if (id.length === 0) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c <= 32 || c === 94 /* ^ */ || c === 44 /* , */ || c === 127) return false;
  }
  return true;
}

export function readRowCursor(row: TableRow, timestampField: string, sysIdField: string): RowCursor {
  const rawId = rawValueOf(row[sysIdField]);
  const sysId = typeof rawId === "string" && rawId !== "" ? rawId : null;
  if (rawId === undefined || rawId === null) {
    return { ok: false, field: sysIdField, reason: "the sys id field is missing", sysId: null };
  }
  if (typeof rawId !== "string" || !isUsableSysId(rawId)) {
    return { ok: false, field: sysIdField, reason: "the sys id is empty or not usable in a query", sysId };
  }
  const rawTs = rawValueOf(row[timestampField]);
  if (rawTs === undefined || rawTs === null) {
    return { ok: false, field: timestampField, reason: "the timestamp field is missing", sysId };
  }
  const epochMs = typeof rawTs === "string" ? parseGlideDateTime(rawTs) : NaN;
  if (Number.isNaN(epochMs)) {
    return { ok: false, field: timestampField, reason: "the timestamp is not yyyy-MM-dd HH:mm:ss", sysId };
  }
  return { ok: true, cursor: { timestamp: rawTs as string, sysId: rawId, epochMs } };
}
