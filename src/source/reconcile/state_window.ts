/**
 * A window of a table's state entries, bounded in size so that a pass's memory does not grow with its table. A pass
 * reads the state partitions in sys id order from the window's start and keeps the table's entries, and whenever
 * more than `maxEntries` are kept it cuts the window at the middle of what it holds (the later half dropped,
 * later entries past the cut ignored). The pass then compares the rows of `[lo, hi)` in one keyset scan and reads
 * from `hi` for the next window. A small table is one window (one scan, no partial page per range); a range of a
 * large one (about 62,500 entries at 1,000,000 rows) is split. Cost: a partition cut by a window is read once
 * more for the next; memory: at most `maxEntries` entries (about 250 bytes each held).
 */
import {
  decodeEntry,
  rangeAt,
  rangeOf,
  STATE_PARTITIONS,
  type StateEntry,
  sysIdOfKey,
} from "./state_entry.ts";

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
  /** Visits every entry of one partition in offset order (StateTopic.readPartition). */
  readonly readPartition: (
    partition: number,
    visit: (key: string, value: string | null) => void,
  ) => Promise<void>;
  readonly tableId: string;
  /** The seed marker's key (state_seed.ts, in partition 0). */
  readonly markerKey: string;
  /** Other keys of the table that are not rows (its pass record, pass_record.ts). */
  readonly otherKeys?: readonly string[];
  /** The window's start (inclusive), or null from the first sys id. */
  readonly lo: string | null;
  readonly maxEntries?: number;
}

/**
 * Reads the window from `lo`: the partition of `lo`'s range, then the next ones while no cut was needed, so a
 * table whose entries fit is one window (its rows one keyset scan, with no partial page per range).
 */
export async function readStateWindow(o: WindowRead): Promise<StateWindow> {
  const max = o.maxEntries ?? WINDOW_MAX_ENTRIES;
  const entries = new Map<string, StateEntry>();
  let hi: string | null = null;
  let seeded = false;
  const visit = (key: string, value: string | null) => {
    if (key === o.markerKey) {
      seeded = value !== null;
      return;
    }
    if (o.otherKeys?.includes(key)) return;
    const sysId = sysIdOfKey(o.tableId, key);
    if (sysId === null || (o.lo !== null && sysId < o.lo) || (hi !== null && sysId >= hi)) return;
    const entry = value === null ? null : decodeEntry(value);
    if (entry === null) {
      entries.delete(sysId);
      return;
    }
    entries.set(sysId, entry);
    if (entries.size > max) hi = cut(entries);
  };
  for (let partition = o.lo === null ? 0 : rangeOf(o.lo);; partition++) {
    await o.readPartition(partition, visit);
    // Cut inside what was read, or the last range read: the window ends there.
    if (hi !== null || partition === STATE_PARTITIONS - 1) break;
    // Full without a cut: the window ends with this range; else the next range joins it.
    if (entries.size >= max) {
      hi = rangeAt(partition + 1).lo;
      break;
    }
  }
  return { entries, hi, seeded };
}

/** Drops the later half of `entries` by sys id; returns the first sys id dropped (the window's new end). */
function cut(entries: Map<string, StateEntry>): string {
  const ids = [...entries.keys()].sort();
  const end = ids[Math.floor(ids.length / 2)];
  for (const id of ids) if (id >= end) entries.delete(id);
  return end;
}
