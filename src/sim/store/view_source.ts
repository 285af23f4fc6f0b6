/**
 * A read-only database view: the base table left-joined to a second table, columns named
 * `<prefix>_<field>`. One view row per base row (row numbers are the base table's), so the view also
 * inherits the base table's (sys_updated_on, sys_id) index under its prefixed names.
 */
import type { ViewSchema } from "../schema/catalog.ts";
import type { FieldDef } from "../schema/fields.ts";
import type { ColumnReader, RowSource, UpdatedOnIndex } from "./row_source.ts";
import type { TableStore } from "./table_store.ts";

export class ViewSource implements RowSource {
  readonly readOnly = true;
  readonly name: string;
  readonly label: string;
  readonly fieldNames: readonly string[];
  readonly idField: string;
  #base: TableStore;
  #fields = new Map<string, FieldDef>();
  #readers = new Map<string, ColumnReader>();
  #index: UpdatedOnIndex;

  constructor(view: ViewSchema, tables: (name: string) => TableStore) {
    this.name = view.name;
    this.label = view.label;
    this.#base = tables(view.base.table);
    const joined = tables(view.join.table);
    const joinKey = this.#base.reader(view.join.on)!;
    for (const col of view.columns) {
      const fromBase = col.prefix === view.base.prefix;
      const src = (fromBase ? this.#base : joined).reader(col.field);
      if (!src) throw new Error(`view ${view.name}: no field ${col.table}.${col.field}`);
      const def: FieldDef = {
        ...src.def,
        name: col.name,
        label: `${col.prefix} ${src.def.label}`,
        unique: false,
      };
      this.#fields.set(col.name, def);
      if (fromBase) {
        this.#readers.set(col.name, { def, get: src.get, seconds: src.seconds, json: src.json });
      } else {
        // Left join: an incident without a (known) caller gets empty right-hand columns.
        const partner = (row: number) => joined.rowBySysId(joinKey.get(row));
        this.#readers.set(col.name, {
          def,
          get: (row) => {
            const other = partner(row);
            return other < 0 ? "" : src.get(other);
          },
          seconds: src.seconds && ((row) => {
            const other = partner(row);
            return other < 0 ? NaN : src.seconds!(other);
          }),
        });
      }
    }
    this.fieldNames = view.columns.map((c) => c.name);
    this.idField = `${view.base.prefix}_sys_id`;
    const baseIndex = this.#base.updatedIndex;
    const prefix = view.base.prefix;
    this.#index = {
      field: `${prefix}_sys_updated_on`,
      sysIdField: `${prefix}_sys_id`,
      get length() {
        return baseIndex.length;
      },
      at: (p) => baseIndex.at(p),
      lowerBound: (s) => baseIndex.lowerBound(s),
      upperBound: (s) => baseIndex.upperBound(s),
    };
  }

  get liveCount(): number {
    return this.#base.liveCount;
  }
  get updatedIndex(): UpdatedOnIndex | undefined {
    return this.#fields.has(this.#index.field) && this.#fields.has(this.#index.sysIdField)
      ? this.#index
      : undefined;
  }

  field(name: string): FieldDef | undefined {
    return this.#fields.get(name);
  }

  reader(name: string): ColumnReader | undefined {
    return this.#readers.get(name);
  }

  liveRows(): Iterable<number> {
    return this.#base.liveRows();
  }

  rowBySysId(sysId: string): number {
    return this.#base.rowBySysId(sysId);
  }
}
