/**
 * The field rules in the spec's order, from a record's fields to a request body:
 * 1. rename, then allowlist or denylist;  2. reserved fields stripped;  3. nulls;  4. nested values;
 * then every remaining value is rendered as the instance expects it. Rule 5 (unknown fields) needs the
 * table's dictionary and runs later, in `UnknownFieldRule`, on the body this returns.
 *
 * ```ts
 * const body = mapBody([{ name: "short_description", schema: null, value: "Printer down" }], settings.fields);
 * // { short_description: "Printer down" }
 * ```
 */
import type { InputField } from "../input.ts";
import { renderScalar } from "../render.ts";
import type { FieldRuleSettings } from "../settings.ts";
import { applyNestedRule } from "./nested.ts";
import { applyNullRules } from "./nulls.ts";
import { renameFields } from "./rename.ts";
import { stripReserved } from "./reserved.ts";
import { selectFields } from "./select.ts";

export function mapBody(fields: readonly InputField[], settings: FieldRuleSettings): Record<string, string> {
  let body = renameFields(fields, settings.renames);
  body = selectFields(body, settings.allowlist, settings.denylist);
  body = stripReserved(body, settings.reserved);
  body = applyNullRules(body, settings.nullBehavior);
  body = applyNestedRule(body, settings);
  // Flattening can build a reserved name (sys + id → sys_id); it is no more writable than the original.
  body = stripReserved(body, settings.reserved);
  // fromEntries defines own properties, so even a field named "__proto__" stays a field.
  return Object.fromEntries(
    body.map((field) => [field.name, renderScalar(field.schema, field.value, field.name)]),
  );
}
