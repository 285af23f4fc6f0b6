/**
 * Field rule 2: the fields the instance maintains itself (`sys_id` is the row's address, the `sys_created_*`,
 * `sys_updated_*` and `sys_mod_count` stamps) and the operation header's name are never written.
 */
import type { BodyField } from "./body_field.ts";

export function stripReserved(fields: readonly BodyField[], reserved: ReadonlySet<string>): BodyField[] {
  return fields.filter((field) => !reserved.has(field.name));
}
