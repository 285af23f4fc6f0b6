/**
 * One stored table: columns, the sys_id lookup, tombstones for deleted rows, and the (sys_updated_on, sys_id)
 * index. System fields are stamped here so that every write path (HTTP, direct test access, the background
 * writer, seeding) keeps them correct.
 */
import { type Column, columnFor, TimeColumn } from "./columns.ts";
import type { ColumnReader, RowSource, UpdatedOnIndex } from "./row_source.ts";
import type { FieldDef, TableSchema } from "../schema/fields.ts";
import { formatGlideDateTime } from "../glide_time.ts";

export interface WriteContext {
  /** Instance time of the write, epoch seconds. */
  nowSeconds: number;
  /** user_name stamped into sys_created_by / sys_updated_by. */
  user: string;
  /** Keep caller-supplied sys_* values (sysparm_suppress_auto_sys_field). */
  suppressAutoSysFields?: boolean;
  /** New sys_id generator. */
  newSysId: () => string;
}

/** Raised when an insert names a sys_id that already exists. */
export class DuplicateSysIdError extends Error {}

const AUTO_FIELDS = new Set([
  "sys_created_on",
  "sys_created_by",
  "sys_updated_on",
  "sys_updated_by",
  "sys_mod_count",
]);

export class TableStore implements RowSource {
  readonly schema: TableSchema;
  readonly readOnly = false;
  readonly idField = "sys_id";
  readonly fieldNames: readonly string[];
  #fields = new Map<string, FieldDef>();
  #columns = new Map<string, Column>();
  #readers = new Map<string, ColumnReader>();
  #capacity: number;
  #rowCount = 0;
  #alive: Uint8Array;
  #liveCount = 0;
  #bySysId = new Map<string, number>();
  #numberSeq = 10000;
  readonly #index: SortedIndex;
  readonly #updatedOn: TimeColumn;
  readonly #sysId: Column;

  constructor(schema: TableSchema, initialCapacity = 1024) {
    this.schema = schema;
    this.#capacity = initialCapacity;
    this.#alive = new Uint8Array(initialCapacity);
    for (const def of schema.fields) {
      const column = columnFor(def, initialCapacity);
      this.#fields.set(def.name, def);
      this.#columns.set(def.name, column);
      this.#readers.set(def.name, {
        def,
        get: (row) => column.get(row),
        seconds: column.seconds,
        json: column.json,
      });
    }
    this.fieldNames = schema.fields.map((f) => f.name);
    this.#updatedOn = this.#columns.get("sys_updated_on") as TimeColumn;
    this.#sysId = this.#columns.get("sys_id")!;
    this.#index = new SortedIndex(this.#updatedOn, this.#sysId, initialCapacity);
  }

  get name(): string {
    return this.schema.name;
  }
  get label(): string {
    return this.schema.label;
  }
  get liveCount(): number {
    return this.#liveCount;
  }
  get updatedIndex(): UpdatedOnIndex {
    return this.#index;
  }

  field(name: string): FieldDef | undefined {
    return this.#fields.get(name);
  }

  reader(name: string): ColumnReader | undefined {
    return this.#readers.get(name);
  }

  column(name: string): Column | undefined {
    return this.#columns.get(name);
  }

  *liveRows(): Iterable<number> {
    for (let row = 0; row < this.#rowCount; row++) if (this.#alive[row]) yield row;
  }

  rowBySysId(sysId: string): number {
    return this.#bySysId.get(sysId) ?? -1;
  }

  /** Pre-allocates room for `extra` more rows (seeding a million rows should not regrow a hundred times). */
  reserve(extra: number): void {
    this.#ensureCapacity(this.#rowCount + extra);
  }

  #ensureCapacity(needed: number): void {
    if (needed <= this.#capacity) return;
    let next = this.#capacity * 2;
    while (next < needed) next *= 2;
    for (const c of this.#columns.values()) c.grow(next);
    const alive = new Uint8Array(next);
    alive.set(this.#alive);
    this.#alive = alive;
    this.#index.grow(next);
    this.#capacity = next;
  }

  /** Next number such as INC0010001. */
  nextNumber(): string {
    return `${this.schema.numberPrefix ?? "NUM"}${String(++this.#numberSeq).padStart(7, "0")}`;
  }

  /**
   * Allocates a row and lets `fill` write its columns directly (the seeding fast path); the row must get
   * sys_id and sys_updated_on. Returns the row number.
   */
  appendRaw(fill: (row: number, columns: Map<string, Column>) => void): number {
    this.#ensureCapacity(this.#rowCount + 1);
    const row = this.#rowCount++;
    fill(row, this.#columns);
    this.#alive[row] = 1;
    this.#liveCount++;
    this.#bySysId.set(this.#sysId.get(row), row);
    this.#index.insert(row);
    return row;
  }

  /** Inserts a row from field values; unknown fields are ignored, defaults applied. Returns the row. */
  insert(values: Record<string, string>, ctx: WriteContext): number {
    const requested = values.sys_id;
    if (requested && this.#bySysId.has(requested)) {
      throw new DuplicateSysIdError(`sys_id ${requested} exists`);
    }
    return this.appendRaw((row, columns) => {
      for (const def of this.schema.fields) {
        const given = values[def.name];
        const keepGiven = given !== undefined && (!AUTO_FIELDS.has(def.name) || ctx.suppressAutoSysFields);
        const value = keepGiven ? String(given) : this.#defaultFor(def, ctx);
        columns.get(def.name)!.set(row, value);
      }
      if (!columns.get("sys_id")!.get(row)) columns.get("sys_id")!.set(row, ctx.newSysId());
      if (Number.isNaN(this.#updatedOn.seconds(row))) this.#updatedOn.setSeconds(row, ctx.nowSeconds);
    });
  }

  #defaultFor(def: FieldDef, ctx: WriteContext): string {
    switch (def.name) {
      case "sys_created_on":
      case "sys_updated_on":
        return formatGlideDateTime(ctx.nowSeconds);
      case "sys_created_by":
      case "sys_updated_by":
        return ctx.user;
      case "sys_mod_count":
        return "0";
      case "number":
        return this.schema.numberPrefix ? this.nextNumber() : "";
      case "opened_at":
        return this.#fields.has("number") ? formatGlideDateTime(ctx.nowSeconds) : "";
      case "sys_class_name":
        return def.defaultValue ?? this.name;
      default:
        return def.defaultValue ?? "";
    }
  }

  /**
   * Applies field values to a row. Returns false when nothing changed: like the instance, an update that
   * changes no field does not bump sys_mod_count or sys_updated_on.
   */
  update(row: number, values: Record<string, string>, ctx: WriteContext, clearOmitted = false): boolean {
    const changes: Array<[string, string]> = [];
    for (const def of this.schema.fields) {
      if (def.name === "sys_id") continue;
      if (AUTO_FIELDS.has(def.name) && !ctx.suppressAutoSysFields) continue;
      let value = values[def.name];
      if (value === undefined) {
        if (
          !clearOmitted || AUTO_FIELDS.has(def.name) || def.name === "sys_class_name" || def.name === "number"
        ) {
          continue;
        }
        value = "";
      }
      const column = this.#columns.get(def.name)!;
      const before = column.get(row);
      column.set(row, String(value));
      if (column.get(row) !== before) {
        column.set(row, before);
        changes.push([def.name, String(value)]);
      }
    }
    if (changes.length === 0) return false;
    this.#index.remove(row);
    for (const [name, value] of changes) this.#columns.get(name)!.set(row, value);
    if (!ctx.suppressAutoSysFields) {
      this.#updatedOn.setSeconds(row, ctx.nowSeconds);
      this.#columns.get("sys_updated_by")!.set(row, ctx.user);
      const count = this.#columns.get("sys_mod_count")!;
      count.set(row, String((Number(count.get(row)) || 0) + 1));
    }
    this.#index.insert(row);
    return true;
  }

  delete(row: number): void {
    if (!this.#alive[row]) return;
    this.#index.remove(row);
    this.#alive[row] = 0;
    this.#liveCount--;
    this.#bySysId.delete(this.#sysId.get(row));
  }

  /** The row's raw values keyed by field name. */
  record(row: number): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, column] of this.#columns) out[name] = column.get(row);
    return out;
  }
}

/** Row numbers ordered by (sys_updated_on, sys_id), kept sorted on every write by binary search and a shift. */
class SortedIndex implements UpdatedOnIndex {
  readonly field = "sys_updated_on";
  readonly sysIdField = "sys_id";
  #rows: Int32Array;
  #length = 0;
  #secs: TimeColumn;
  #sysId: Column;

  constructor(secs: TimeColumn, sysId: Column, capacity: number) {
    this.#secs = secs;
    this.#sysId = sysId;
    this.#rows = new Int32Array(capacity);
  }

  get length(): number {
    return this.#length;
  }

  at(position: number): number {
    return this.#rows[position];
  }

  grow(capacity: number): void {
    const next = new Int32Array(capacity);
    next.set(this.#rows.subarray(0, this.#length));
    this.#rows = next;
  }

  #compare(row: number, secs: number, sysId: string): number {
    const s = this.#secs.seconds(row);
    if (s !== secs) {
      return (Number.isNaN(s) ? -Infinity : s) < (Number.isNaN(secs) ? -Infinity : secs) ? -1 : 1;
    }
    const id = this.#sysId.get(row);
    return id < sysId ? -1 : id > sysId ? 1 : 0;
  }

  /** First position whose key is >= (secs, sysId). */
  #position(secs: number, sysId: string): number {
    let lo = 0, hi = this.#length;
    // Appends (the common case: writes happen "now") skip the search.
    if (hi > 0 && this.#compare(this.#rows[hi - 1], secs, sysId) < 0) return hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#compare(this.#rows[mid], secs, sysId) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(row: number): void {
    const at = this.#position(this.#secs.seconds(row), this.#sysId.get(row));
    this.#rows.copyWithin(at + 1, at, this.#length);
    this.#rows[at] = row;
    this.#length++;
  }

  remove(row: number): void {
    const at = this.#position(this.#secs.seconds(row), this.#sysId.get(row));
    if (this.#rows[at] !== row) throw new Error(`index out of step for row ${row}`);
    this.#rows.copyWithin(at, at + 1, this.#length);
    this.#length--;
  }

  lowerBound(secs: number): number {
    return this.#bound(secs, false);
  }

  upperBound(secs: number): number {
    return this.#bound(secs, true);
  }

  #bound(secs: number, strict: boolean): number {
    let lo = 0, hi = this.#length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.#secs.seconds(this.#rows[mid]);
      const v = Number.isNaN(s) ? -Infinity : s;
      if (strict ? v <= secs : v < secs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
