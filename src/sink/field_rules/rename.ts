/**
 * Field rule 1a, `svc.sink.field.rename`: top-level fields are renamed exactly as listed. A custom `u_` name
 * is an ordinary name here: the prefix is never added or stripped.
 */
import { MappingError } from "../record_error.ts";
import { type BodyField, duplicateNames } from "./body_field.ts";

export function renameFields(
  fields: readonly BodyField[],
  renames: ReadonlyMap<string, string>,
): BodyField[] {
  if (renames.size === 0) return [...fields];
  const renamed = fields.map((field) => {
    const to = renames.get(field.name);
    return to === undefined ? field : { ...field, name: to };
  });
  const duplicates = duplicateNames(renamed);
  if (duplicates.length > 0) {
    throw new MappingError(
      `svc.sink.field.rename gives more than one field the name ${
        duplicates.map((d) => `"${d}"`).join(", ")
      }`,
    );
  }
  return renamed;
}
