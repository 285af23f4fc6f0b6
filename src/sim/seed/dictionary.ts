/** sys_db_object and sys_dictionary rows describing the catalog, queryable like any table. */
import { formatGlideDateTime } from "../glide_time.ts";
import type { Random } from "../random.ts";
import type { TableSchema } from "../schema/fields.ts";
import type { TableStore } from "../store/table_store.ts";

export function describeTables(
  catalog: Map<string, TableSchema>,
  dbObject: TableStore,
  dictionary: TableStore,
  random: Random,
  at: number,
): void {
  const stamp = formatGlideDateTime(at);
  const system = (sysId: string) => ({
    sys_id: sysId,
    sys_created_on: stamp,
    sys_updated_on: stamp,
    sys_created_by: "system",
    sys_updated_by: "system",
    sys_mod_count: "0",
  });
  const ctx = { nowSeconds: at, user: "system", suppressAutoSysFields: true, newSysId: () => random.hex32() };
  const ids = new Map<string, string>();
  for (const t of catalog.values()) ids.set(t.name, random.hex32());
  for (const t of catalog.values()) {
    dbObject.insert({
      ...system(ids.get(t.name)!),
      name: t.name,
      label: t.label,
      super_class: t.superClass ? ids.get(t.superClass)! : "",
      is_extendable: String(t.extendable),
    }, ctx);
    // The collection row (no element) describes the table itself.
    dictionary.insert({
      ...system(random.hex32()),
      name: t.name,
      element: "",
      column_label: t.label,
      internal_type: "collection",
    }, ctx);
    for (const f of t.ownFields) {
      dictionary.insert({
        ...system(random.hex32()),
        name: t.name,
        element: f.name,
        column_label: f.label,
        internal_type: f.type,
        reference: f.reference ?? "",
        max_length: String(f.maxLength),
        mandatory: String(f.mandatory ?? false),
        read_only: String(f.readOnly ?? false),
        active: "true",
        default_value: f.defaultValue ?? "",
        choice: f.choices ? "1" : "",
      }, ctx);
    }
  }
}
