/**
 * Drift: the changes a real instance makes that a cursor on `sys_updated_on` cannot see. A script with
 * `autoSysFields(false)` changes a row without moving `sys_updated_on` or `sys_mod_count`; Table Cleaner purges
 * rows without an audit row; a restore from XML or an import inserts rows with old timestamps; a clone or a
 * restore from backup rolls a whole table back to an earlier state. Tests, the demo and benchmarks make each of
 * them here, so the connector's repairs can be shown.
 */
import { formatGlideDateTime, parseGlideDateTime } from "./glide_time.ts";
import type { Database } from "./store/database.ts";
import type { TableStore, WriteContext } from "./store/table_store.ts";
import type { InstanceClock } from "./clock.ts";
import type { Random } from "./random.ts";

/** A table's rows as they were at one moment (every field's raw value), for a later rollback. */
interface Snapshot {
  table: string;
  takenAt: string;
  rows: Map<string, Record<string, string>>;
}

/** What a rollback did. */
export interface RestoreResult {
  /** Rows that no longer existed and came back with their old values and timestamps. */
  restored: number;
  /** Rows changed since the snapshot that went back to their old values (and old sys_updated_on). */
  reverted: number;
  /** Rows inserted since the snapshot that are gone (no audit row, as after a clone). */
  removed: number;
}

export class DriftMaker {
  #db: Database;
  #clock: InstanceClock;
  #ids: Random;
  #snapshots = new Map<string, Snapshot>();
  #nextSnapshot = 1;

  constructor(db: Database, clock: InstanceClock, ids: Random) {
    this.#db = db;
    this.#clock = clock;
    this.#ids = ids;
  }

  #store(table: string): TableStore {
    const store = this.#db.store(table);
    if (!store) throw new RangeError(`no stored table ${table}`);
    return store;
  }

  #row(store: TableStore, sysId: string): number {
    const row = store.rowBySysId(sysId);
    if (row < 0) throw new RangeError(`no row ${sysId} in ${store.name}`);
    return row;
  }

  #ctx(keepSysFields: boolean): WriteContext {
    return {
      nowSeconds: this.#clock.nowSeconds(),
      user: "system",
      suppressAutoSysFields: keepSysFields,
      newSysId: () => this.#ids.hex32(),
    };
  }

  /**
   * Changes a row without moving `sys_updated_on`, `sys_updated_by` or `sys_mod_count` (a script with
   * `autoSysFields(false)`); system fields named in `values` are ignored. Returns the row as stored.
   */
  silentUpdate(table: string, sysId: string, values: Record<string, string>): Record<string, string> {
    const store = this.#store(table);
    const row = this.#row(store, sysId);
    const plain = Object.fromEntries(Object.entries(values).filter(([k]) => !k.startsWith("sys_")));
    store.update(row, plain, this.#ctx(true));
    return store.record(row);
  }

  /** Deletes a row leaving no trace: no `sys_audit` DELETED row, nothing in `sys_audit_delete` (Table Cleaner). */
  purge(table: string, sysId: string): void {
    const store = this.#store(table);
    store.delete(this.#row(store, sysId));
  }

  /**
   * Inserts a row whose `sys_created_on` and `sys_updated_on` are `updatedOn` (`yyyy-MM-dd HH:mm:ss`, UTC), in
   * the past: a record restored from XML or brought in by an import. A `sys_id` in `values` is kept.
   */
  insertDated(table: string, values: Record<string, string>, updatedOn: string): Record<string, string> {
    const seconds = parseGlideDateTime(updatedOn);
    if (Number.isNaN(seconds)) throw new RangeError(`updatedOn is not yyyy-MM-dd HH:mm:ss: ${updatedOn}`);
    const store = this.#store(table);
    const stamp = formatGlideDateTime(seconds);
    const row = store.insert(
      {
        sys_created_by: "system",
        sys_updated_by: "system",
        sys_mod_count: "0",
        ...values,
        sys_created_on: stamp,
        sys_updated_on: stamp,
      },
      this.#ctx(true),
    );
    return store.record(row);
  }

  /** Keeps the table's present rows, for `restore`; returns the snapshot's id. */
  snapshot(table: string): string {
    const store = this.#store(table);
    const rows = new Map<string, Record<string, string>>();
    for (const row of store.liveRows()) {
      const record = store.record(row);
      rows.set(record.sys_id, record);
    }
    const id = `snapshot-${this.#nextSnapshot++}`;
    this.#snapshots.set(id, { table, takenAt: formatGlideDateTime(this.#clock.nowSeconds()), rows });
    return id;
  }

  /** The snapshots kept: id, table, instance time taken and rows. */
  snapshots(): Array<{ id: string; table: string; takenAt: string; rows: number }> {
    return [...this.#snapshots].map(([id, s]) => ({
      id,
      table: s.table,
      takenAt: s.takenAt,
      rows: s.rows.size,
    }));
  }

  /**
   * Rolls the snapshot's table back to it, as a clone over the instance or a restore from backup does: rows
   * inserted since are gone, changed rows have their old values and old `sys_updated_on` again, deleted rows are
   * back; no audit row is written. The instance clock keeps running. The snapshot stays usable.
   */
  restore(id: string): RestoreResult {
    const snap = this.#snapshots.get(id);
    if (!snap) throw new RangeError(`no snapshot ${id}`);
    const store = this.#store(snap.table);
    const ids = store.reader("sys_id")!;
    const result: RestoreResult = { restored: 0, reverted: 0, removed: 0 };
    for (const row of [...store.liveRows()]) {
      if (snap.rows.has(ids.get(row))) continue;
      store.delete(row);
      result.removed++;
    }
    const ctx = this.#ctx(true);
    for (const [sysId, values] of snap.rows) {
      const row = store.rowBySysId(sysId);
      if (row < 0) {
        store.insert(values, ctx);
        result.restored++;
      } else if (store.update(row, values, ctx)) {
        result.reverted++;
      }
    }
    return result;
  }
}

const makers = new WeakMap<Database, DriftMaker>();

/** The one drift maker of a simulated instance (its snapshots are shared by the REST hooks and the API). */
export function driftOf(db: Database, clock: InstanceClock, ids: Random): DriftMaker {
  let maker = makers.get(db);
  if (!maker) makers.set(db, maker = new DriftMaker(db, clock, ids));
  return maker;
}
