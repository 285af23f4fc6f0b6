/**
 * All tables and views of one simulated instance, plus the cross-table lookups that the API needs:
 * dot-walked fields (`caller_id.email`) and display values of references.
 */
import { buildCatalog, buildViews } from "../schema/catalog.ts";
import type { FieldDef, TableSchema } from "../schema/fields.ts";
import type { ColumnReader, RowSource } from "./row_source.ts";
import { TableStore } from "./table_store.ts";
import { ViewSource } from "./view_source.ts";

export class Database {
  readonly catalog: Map<string, TableSchema>;
  #stores = new Map<string, TableStore>();
  #views = new Map<string, ViewSource>();

  constructor() {
    this.catalog = buildCatalog();
    for (const schema of this.catalog.values()) this.#stores.set(schema.name, new TableStore(schema));
    for (const view of buildViews()) this.#views.set(view.name, new ViewSource(view, (n) => this.store(n)!));
  }

  /** A stored table (not a view), or undefined. */
  store(name: string): TableStore | undefined {
    return this.#stores.get(name);
  }

  /** A table or view the API can read, or undefined ("Invalid table"). */
  source(name: string): RowSource | undefined {
    return this.#stores.get(name) ?? this.#views.get(name);
  }

  names(): string[] {
    return [...this.#stores.keys(), ...this.#views.keys()];
  }

  /**
   * A reader for a field path of a source: a plain field, or a dot-walk through reference fields
   * (`caller_id.manager.email`). Undefined when any step is unknown.
   */
  reader(source: RowSource, path: string): ColumnReader | undefined {
    const direct = source.reader(path);
    if (direct || !path.includes(".")) return direct;
    const dot = path.indexOf(".");
    const ref = source.reader(path.slice(0, dot));
    if (!ref || ref.def.type !== "reference" || !ref.def.reference) return undefined;
    const target = this.#stores.get(ref.def.reference);
    const inner = target && this.reader(target, path.slice(dot + 1));
    if (!target || !inner) return undefined;
    const hop = (row: number) => target.rowBySysId(ref.get(row));
    return {
      def: inner.def,
      get: (row) => {
        const r = hop(row);
        return r < 0 ? "" : inner.get(r);
      },
      seconds: inner.seconds && ((row) => {
        const r = hop(row);
        return r < 0 ? NaN : inner.seconds!(r);
      }),
    };
  }

  /** Display value of a reference: the target row's display field, or "" when the row is unknown. */
  referenceDisplay(def: FieldDef, value: string): string {
    if (value === "") return "";
    const target = def.reference ? this.#stores.get(def.reference) : undefined;
    if (!target) return value;
    const row = target.rowBySysId(value);
    if (row < 0) return value === "global" && def.reference === "sys_user_group" ? "global" : "";
    return target.reader(target.schema.displayField)?.get(row) ?? "";
  }
}
