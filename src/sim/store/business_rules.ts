/**
 * The few business rules of the instance that integrations notice: task priority is computed from impact
 * and urgency (1+1 → 1, 2+2 → 3, 3+3 → 5), and `active` follows a closing state.
 */
import type { TableStore } from "./table_store.ts";

const CLOSED_STATES = new Set(["6", "7", "8"]);

/** Returns the values to write with derived fields added (the caller's explicit values win). */
export function applyBusinessRules(
  store: TableStore,
  values: Record<string, string>,
  row?: number,
): Record<string, string> {
  if (!store.field("priority") || !store.field("impact") || !store.field("urgency")) return values;
  const out = { ...values };
  const current = (name: string) =>
    values[name] ??
      (row === undefined ? store.field(name)?.defaultValue ?? "" : store.reader(name)!.get(row));
  if (("impact" in values || "urgency" in values) && !("priority" in values)) {
    const impact = Number(current("impact")), urgency = Number(current("urgency"));
    if (impact >= 1 && impact <= 3 && urgency >= 1 && urgency <= 3) {
      out.priority = String(impact + urgency - 1);
    }
  }
  if ("state" in values && !("active" in values) && store.field("active")) {
    out.active = CLOSED_STATES.has(values.state) ? "false" : "true";
  }
  return out;
}
