/**
 * Tables to tasks by rendezvous (highest random weight) hashing: each table goes to the task slot with the highest
 * hash of (table identity, slot). A table moves only when its winning slot disappears or a new slot outbids it, so
 * changing `tasks.max` or the alias list moves as few tables as possible, and a table is never split.
 *
 * The identity is the partition identity (table name and query fingerprint), not the alias: renaming an alias
 * keeps its table on the same task, as it keeps its offsets.
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

/** The slot (0-based, below `slots`) a table goes to. Ties go to the lower slot. */
export function slotOf(identity: string, slots: number): number {
  let best = 0;
  let bestWeight = -1;
  for (let slot = 0; slot < slots; slot++) {
    const w = weight(identity, slot);
    if (w > bestWeight) {
      best = slot;
      bestWeight = w;
    }
  }
  return best;
}

/**
 * Groups the tables by slot for `maxTasks` slots. Empty slots are left out (empty tasks are not started), so the
 * result has at most `maxTasks` groups, each in the order the tables were given.
 */
export function assignTables(tables: readonly AssignableTable[], maxTasks: number): string[][] {
  if (!Number.isInteger(maxTasks) || maxTasks < 1) {
    throw new RangeError(`tasks.max must be at least 1, got ${maxTasks}`);
  }
  const slots: string[][] = Array.from({ length: maxTasks }, () => []);
  for (const t of tables) slots[slotOf(t.identity, maxTasks)].push(t.alias);
  return slots.filter((aliases) => aliases.length > 0);
}
