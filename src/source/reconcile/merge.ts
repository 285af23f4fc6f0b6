/**
 * The merge of one sys id range: the rows the instance holds (each with its version and the digest of the value
 * the connector would send now) against the state's entries (what the topic holds), sorted into repairs:
 *
 * - `silent-update`: same `sys_updated_on` and `sys_mod_count`, another digest (changed without moving them);
 * - `rolled-back`: the row is at an older version than the topic's (a restore or a clone went back);
 * - `missing`: no entry, or an entry at an older version than the row although the stream is past it (an
 *   old-dated insert, a row restored below the cursor, an un-hidden row);
 * - `deleted`: an entry with no row (a deletion the audit does not show).
 *
 * Rows the stream has not passed yet (`streamOwns`) are the stream's, never repairs, and their entries are not
 * read as deletions either. An entry whose digest an earlier version made (digest.ts) cannot show a silent
 * update: at the row's version it is refreshed (`stale`), not repaired.
 */
import { isCurrentDigest } from "./digest.ts";
import type { StateEntry } from "./state_entry.ts";

export type RepairKind = "silent-update" | "rolled-back" | "missing" | "deleted";
export const REPAIR_KINDS: readonly RepairKind[] = ["silent-update", "rolled-back", "missing", "deleted"];

/** A row as a pass compares it. */
export interface ComparedRow {
  readonly sysId: string;
  readonly updatedOn: string;
  readonly modCount: string;
  readonly digest: string;
  /** The stream has not passed this row yet (it is after the table's cursor). */
  readonly streamOwns: boolean;
}

export interface Repair {
  readonly kind: RepairKind;
  readonly sysId: string;
}

/**
 * Sorts `rows` against `state`; entries matched by a row are removed from `state`, so that what remains after
 * every row of the range was merged are the rows gone (`deletedIn`). `stale` is told the rows whose entry has an
 * older digest at the row's version: their entries are to be written again.
 */
export function mergeRows(
  rows: readonly ComparedRow[],
  state: Map<string, StateEntry>,
  stale: (sysId: string) => void = () => {},
): Repair[] {
  const repairs: Repair[] = [];
  for (const row of rows) {
    const entry = state.get(row.sysId);
    state.delete(row.sysId);
    if (row.streamOwns) continue;
    if (entry !== undefined && !isCurrentDigest(entry.d) && sameVersion(row, entry)) {
      stale(row.sysId);
      continue;
    }
    const kind = entry === undefined ? "missing" : kindOf(row, entry);
    if (kind !== null) repairs.push({ kind, sysId: row.sysId });
  }
  return repairs;
}

function sameVersion(row: ComparedRow, entry: StateEntry): boolean {
  return compareVersions(row.updatedOn, row.modCount, entry.u, entry.m) === 0;
}

/** The entries no row matched: deletions. */
export function deletedIn(state: Map<string, StateEntry>): Repair[] {
  return [...state.keys()].sort().map((sysId) => ({ kind: "deleted" as const, sysId }));
}

function kindOf(row: ComparedRow, entry: StateEntry): RepairKind | null {
  if (entry.d === row.digest) return null;
  const order = compareVersions(row.updatedOn, row.modCount, entry.u, entry.m);
  if (order === 0) return "silent-update";
  return order < 0 ? "rolled-back" : "missing";
}

/** Orders two versions by `sys_updated_on` (glide text sorts as time), then by `sys_mod_count` as a number. */
export function compareVersions(u1: string, m1: string, u2: string, m2: string): number {
  if (u1 !== u2) return u1 < u2 ? -1 : 1;
  const a = Number(m1), b = Number(m2);
  if (m1 === m2 || Number.isNaN(a) || Number.isNaN(b)) return m1 === m2 ? 0 : m1 < m2 ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
