/**
 * Field rule 3, `svc.sink.null.behavior`: `omit` leaves a null field out (a PATCH then leaves it untouched),
 * `clear` sends an empty string (which clears it on the instance), `reject` makes the record an error.
 */
import type { NullBehavior } from "../settings.ts";
import { MappingError } from "../record_error.ts";
import type { BodyField } from "./body_field.ts";

/** The field after the null rule, or null when it is left out. `path` names it in the error. */
export function applyNullRule(
  field: BodyField,
  behavior: NullBehavior,
  path: string = field.name,
): BodyField | null {
  if (field.value !== null && field.value !== undefined) return field;
  switch (behavior) {
    case "omit":
      return null;
    case "clear":
      return { name: field.name, schema: null, value: "" };
    case "reject":
      throw new MappingError(`field "${path}" is null (svc.sink.null.behavior=reject)`);
  }
}

export function applyNullRules(fields: readonly BodyField[], behavior: NullBehavior): BodyField[] {
  return fields.flatMap((field) => {
    const kept = applyNullRule(field, behavior);
    return kept === null ? [] : [kept];
  });
}
