/**
 * Field rule 1b: `svc.sink.field.allowlist` keeps only the listed fields, `svc.sink.field.denylist` drops the
 * listed ones. Both match the names after renaming; never both are set.
 */
import type { BodyField } from "./body_field.ts";

export function selectFields(
  fields: readonly BodyField[],
  allowlist: ReadonlySet<string> | null,
  denylist: ReadonlySet<string> | null,
): BodyField[] {
  if (allowlist !== null) return fields.filter((field) => allowlist.has(field.name));
  if (denylist !== null) return fields.filter((field) => !denylist.has(field.name));
  return [...fields];
}
