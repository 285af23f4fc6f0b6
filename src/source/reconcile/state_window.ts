/**
 * A window of one range's state entries, bounded in size so that a pass's memory does not grow with its table.
 * A range (one state partition) of a 1,000,000-row table holds about 62,500 entries, of a 10,000,000-row table ten
 * times that: a pass reads the range's partition and keeps the table's entries from the window's start, and
 * whenever more than `maxEntries` are kept it cuts the window at the middle of what it holds (the later half
 * dropped, later entries past the cut ignored). The pass then compares the rows of `[lo, hi)` and reads the
 * partition again for the next window from `hi`. Cost: one more read of the partition per window; memory: at most
 * `maxEntries` entries (about 250 bytes each held).
 */
import { decodeEntry, type StateEntry, sysIdOfKey } from "./state_entry.ts";

/** Entries a window holds at most. */
export const WINDOW_MAX_ENTRIES = 50_000;

export interface StateWindow {
  /** The table's entries with sys ids in `[lo, hi)`. */
  readonly entries: Map<string, StateEntry>;
  /** The window's end (exclusive), or null when it reaches the end of its range. */
  readonly hi: string | null;
  /** The partition held the table's seed marker. */
  readonly seeded: boolean;
}

export interface WindowRead {
  /** Visits every entry of the range's partition in offset order (StateTopic.readPartition). */
  readonly readPartition: (visit: (key: string, value: string | null) => void) => Promise<void>;
  readonly tableId: string;
  /** The seed marker's key (state_seed.ts). */
  readonly markerKey: string;
  /** The window's start (inclusive), or null from the range's start. */
  readonly lo: string | null;
  readonly maxEntries?: number;
}

export async function readStateWindow(o: WindowRead): Promise<StateWindow> {
  const max = o.maxEntries ?? WINDOW_MAX_ENTRIES;
  const entries = new Map<string, StateEntry>();
  let hi: string | null = null;
  let seeded = false;
  await o.readPartition((key, value) => {
    if (key === o.markerKey) {
      seeded = value !== null;
      return;
    }
    const sysId = sysIdOfKey(o.tableId, key);
    if (sysId === null || (o.lo !== null && sysId < o.lo) || (hi !== null && sysId >= hi)) return;
    const entry = value === null ? null : decodeEntry(value);
    if (entry === null) {
      entries.delete(sysId);
      return;
    }
    entries.set(sysId, entry);
    if (entries.size > max) hi = cut(entries);
  });
  return { entries, hi, seeded };
}

/** Drops the later half of `entries` by sys id; returns the first sys id dropped (the window's new end). */
function cut(entries: Map<string, StateEntry>): string {
  const ids = [...entries.keys()].sort();
  const end = ids[Math.floor(ids.length / 2)];
  for (const id of ids) if (id >= end) entries.delete(id);
  return end;
}
