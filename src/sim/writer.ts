/**
 * The background writer: inserts and updates rows of a table at a steady rate, or in bursts that land
 * many writes in the same second (the case that breaks timestamp-only cursors). Writes go through the
 * table store, so system fields are stamped from the instance clock.
 */
import type { Random } from "./random.ts";
import type { TableStore } from "./store/table_store.ts";
import type { InstanceClock } from "./clock.ts";
import { SUBJECTS, SYMPTOMS } from "./seed/pools.ts";

export interface WriterSettings {
  /** Writes per second. */
  rowsPerSecond: number;
  /** Table written to. Default "incident". */
  table?: string;
  /** Share of writes that insert new rows; the rest update existing ones. Default 0.3. */
  insertRatio?: number;
  /**
   * "spread": writes every 100 ms (rowsPerSecond/10 each); "burst": all of a second's writes at once.
   * Default "spread".
   */
  mode?: "spread" | "burst";
  /** user_name stamped on the writes. Default "writer". */
  user?: string;
  /**
   * Share of updates made without moving sys_updated_on, sys_updated_by or sys_mod_count (a script with
   * autoSysFields(false)): drift a cursor cannot see. Default 0.
   */
  silentShare?: number;
}

export class BackgroundWriter {
  #timer: ReturnType<typeof setInterval> | undefined;
  #carry = 0;
  #random: Random;
  #clock: InstanceClock;
  #tables: (name: string) => TableStore | undefined;

  constructor(random: Random, clock: InstanceClock, tables: (name: string) => TableStore | undefined) {
    this.#random = random;
    this.#clock = clock;
    this.#tables = tables;
  }

  get running(): boolean {
    return this.#timer !== undefined;
  }

  start(settings: WriterSettings): void {
    this.stop();
    if (!(settings.rowsPerSecond > 0)) throw new RangeError("rowsPerSecond must be positive");
    const table = settings.table ?? "incident";
    if (!this.#tables(table)) throw new RangeError(`no table ${table}`);
    const periodMs = settings.mode === "burst" ? 1000 : 100;
    const perTick = settings.rowsPerSecond * periodMs / 1000;
    this.#timer = setInterval(() => {
      this.#carry += perTick;
      const n = Math.floor(this.#carry);
      this.#carry -= n;
      if (n > 0) this.step(n, table, settings);
    }, periodMs);
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#carry = 0;
  }

  /** Performs n writes now; returns the sys_ids written. */
  step(n: number, tableName = "incident", settings: Partial<WriterSettings> = {}): string[] {
    const table = this.#tables(tableName);
    if (!table) throw new RangeError(`no table ${tableName}`);
    const r = this.#random;
    const ctx = {
      nowSeconds: this.#clock.nowSeconds(),
      user: settings.user ?? "writer",
      newSysId: () => r.hex32(),
    };
    const insertRatio = settings.insertRatio ?? 0.3;
    const sysIds = table.reader("sys_id")!;
    const index = table.updatedIndex;
    const written: string[] = [];
    for (let i = 0; i < n; i++) {
      const values: Record<string, string> = {
        short_description: `${r.pick(SUBJECTS)} ${r.pick(SYMPTOMS)}`,
      };
      if (table.field("state")) values.state = r.pick(["1", "2", "3", "6"]);
      if (index.length === 0 || r.chance(insertRatio)) {
        written.push(sysIds.get(table.insert(values, ctx)));
      } else {
        // Update a random row: it moves to the head of the timeline with a bumped sys_mod_count.
        const row = index.at(r.int(index.length));
        values.work_notes = "updated by the background writer";
        values.reassignment_count = String(r.int(5));
        const silent = (settings.silentShare ?? 0) > 0 && r.chance(settings.silentShare!);
        table.update(row, values, { ...ctx, suppressAutoSysFields: silent });
        written.push(sysIds.get(row));
      }
    }
    return written;
  }
}
