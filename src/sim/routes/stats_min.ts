/**
 * The Aggregate API's `sysparm_min_fields=<f1,f2>`: the smallest value of each named field over the rows the query
 * matches, as the instance answers it: `{"result":{"stats":{"min":{"<field>":"<value>"}}}}`. Like the count it is
 * taken before access control (rows the `acl_hide` fault hides count). Values compare as the stored strings
 * (date-times are `yyyy-MM-dd HH:mm:ss`, so that is time order); an unknown field or no matching row gives "".
 */
import type { RowSource } from "../store/row_source.ts";

export function minOfFields(
  source: RowSource,
  rows: readonly number[],
  fields: string,
): Record<string, string> {
  const min: Record<string, string> = {};
  for (const name of fields.split(",").map((f) => f.trim()).filter((f) => f !== "")) {
    const reader = source.reader(name);
    let best: string | null = null;
    if (reader) {
      for (const row of rows) {
        const value = reader.get(row);
        if (value !== "" && (best === null || value < best)) best = value;
      }
    }
    min[name] = best ?? "";
  }
  return min;
}
