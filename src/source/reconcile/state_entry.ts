/**
 * The reconcile state topic's entries: per row `<table identity>|<sys_id>` → `{u: sys_updated_on, m:
 * sys_mod_count, d: digest}` (JSON), in the partition of the row's `sys_id` range. The ranges split the sys id
 * space by its leading hex digit (16 ranges, compared as text as the instance orders them), so a pass reads one
 * range's entries by reading one partition.
 */

/** Partitions of the state topic: one per leading hex digit of a sys id. */
export const STATE_PARTITIONS = 16;
const DIGITS = "0123456789abcdef";

/** What the state says the topic holds for one row. */
export interface StateEntry {
  /** The row's `sys_updated_on` (raw). */
  readonly u: string;
  /** The row's `sys_mod_count` (raw, "" when the table has none). */
  readonly m: string;
  /** valueDigest of what was sent. */
  readonly d: string;
}

/** A range of sys ids: `lo` inclusive (null = from the start), `hi` exclusive (null = to the end). */
export interface SysIdRange {
  readonly index: number;
  readonly lo: string | null;
  readonly hi: string | null;
}

export function rangeAt(index: number): SysIdRange {
  return {
    index,
    lo: index === 0 ? null : DIGITS[index],
    hi: index === STATE_PARTITIONS - 1 ? null : DIGITS[index + 1],
  };
}

/** The range (state partition) a sys id falls in. */
export function rangeOf(sysId: string): number {
  for (let i = STATE_PARTITIONS - 1; i > 0; i--) if (sysId >= DIGITS[i]) return i;
  return 0;
}

/** The entry key of a row of the table named `tableId`. */
export function stateKey(tableId: string, sysId: string): string {
  return `${tableId}|${sysId}`;
}

/** The sys id of a key of this table, or null when the key is another table's. */
export function sysIdOfKey(tableId: string, key: string): string | null {
  return key.length > tableId.length + 1 && key.startsWith(tableId) && key[tableId.length] === "|"
    ? key.slice(tableId.length + 1)
    : null;
}

export function encodeEntry(entry: StateEntry): string {
  return JSON.stringify({ u: entry.u, m: entry.m, d: entry.d });
}

/** An entry's value, or null when it is not one (written by something else: ignored). */
export function decodeEntry(text: string): StateEntry | null {
  try {
    const v = JSON.parse(text);
    return typeof v?.u === "string" && typeof v?.m === "string" && typeof v?.d === "string"
      ? { u: v.u, m: v.m, d: v.d }
      : null;
  } catch {
    return null;
  }
}
