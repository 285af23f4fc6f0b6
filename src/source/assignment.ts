/**
 * Tables to tasks: balanced rendezvous hashing. Every (table, task slot) pair has a weight, a hash of the table's
 * identity and the slot; the pairs are taken heaviest first, and a table goes to the slot of its first pair whose
 * slot still has room. Room is the fair share: `n` tables on `k` slots give every slot ⌊n/k⌋ tables and `n mod k`
 * of them one more, so no task holds more than one table more than another.
 *
 * Why not the alternatives:
 * - plain rendezvous hashing (each table to its heaviest slot, as before) moves nothing when tables come and go,
 *   but nothing bounds a slot's load: three tables on three slots all land on one slot one time in nine (a user's
 *   three tables on `tasks.max: 3` did, on task 0);
 * - dealing tables round-robin in a sorted order is balanced but not stable: a table added or removed in the
 *   middle of the order shifts every table after it, about half of them to another task.
 * The capacity bound keeps both: the result is the one stable matching of tables and slots under the weights, so
 * adding or removing a table moves only the few tables whose heavier slot filled or freed up (about one on
 * average, measured over 1–30 tables on 2–8 slots; at most one more than the change itself is rare). It is a pure
 * function of the tables and `tasks.max` (every member of a worker group computes the same task configs) and
 * ignores their order in `svc.tables`.
 *
 * The slots are min(tables, tasks.max), numbered from 0: no empty task is started, and growing from n to n+1
 * slots only lets the new slot bid. The identity is the partition identity (table name and query fingerprint),
 * not the alias: renaming an alias keeps its table on the same task, as it keeps its offsets. A table is never
 * split over tasks (its offsets are one source partition; a parallel backfill runs its ranges inside one task).
 */
import { createHash } from "node:crypto";

export interface AssignableTable {
  readonly alias: string;
  /** What the table is, independent of the alias (see partition.ts). */
  readonly identity: string;
}

/** The weight of a table on a slot: 48 bits of SHA-256, plenty to make ties practically impossible. */
function weight(identity: string, slot: number): number {
  return createHash("sha256").update(`${identity}\u0000${slot}`).digest().readUIntBE(0, 6);
}

interface Bid {
  readonly weight: number;
  readonly table: AssignableTable;
  readonly slot: number;
}

/** Heaviest first; ties (two aliases of one identity) by identity, then alias, then the lower slot. */
function byWeight(a: Bid, b: Bid): number {
  if (a.weight !== b.weight) return b.weight - a.weight;
  if (a.table.identity !== b.table.identity) return a.table.identity < b.table.identity ? -1 : 1;
  if (a.table.alias !== b.table.alias) return a.table.alias < b.table.alias ? -1 : 1;
  return a.slot - b.slot;
}

/**
 * The tables of each task for at most `maxTasks` tasks: min(tables, maxTasks) groups, sizes within one of each
 * other, each group's aliases in the order the tables were given.
 */
export function assignTables(tables: readonly AssignableTable[], maxTasks: number): string[][] {
  if (!Number.isInteger(maxTasks) || maxTasks < 1) {
    throw new RangeError(`tasks.max must be at least 1, got ${maxTasks}`);
  }
  const aliases = new Set(tables.map((t) => t.alias));
  if (aliases.size !== tables.length) throw new RangeError("each alias must be assigned once");
  const slots = Math.min(tables.length, maxTasks);
  if (slots === 0) return [];
  const base = Math.floor(tables.length / slots);
  /** Slots that may hold base + 1 tables. */
  let extra = tables.length % slots;

  const bids: Bid[] = [];
  for (const table of tables) {
    for (let slot = 0; slot < slots; slot++) bids.push({ weight: weight(table.identity, slot), table, slot });
  }
  bids.sort(byWeight);

  const slotOf = new Map<string, number>();
  const load = new Array<number>(slots).fill(0);
  for (const { table, slot } of bids) {
    if (slotOf.has(table.alias) || load[slot] > base) continue;
    if (load[slot] === base) {
      if (extra === 0) continue;
      extra--;
    }
    load[slot]++;
    slotOf.set(table.alias, slot);
  }
  // Room adds up to exactly the tables and every table bids on every slot, so every table has its slot.
  const groups: string[][] = Array.from({ length: slots }, () => []);
  for (const t of tables) groups[slotOf.get(t.alias)!].push(t.alias);
  return groups;
}
