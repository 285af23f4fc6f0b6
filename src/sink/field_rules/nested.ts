/**
 * Field rule 4, `svc.sink.nested.behavior`, for Struct, Map and array values:
 * - `reject` (default): the record is an error naming the field's full paths (`location.city`);
 * - `flatten`: nested keys are joined with `svc.sink.nested.flatten.delimiter` (`location.city` becomes
 *   `location_city`); nulls met inside follow the null rule under their full path; an array has no keys to
 *   join, so it is an error (stringify it instead);
 * - `stringify`: the nested value is sent as JSON text, numbers exact, logical values rendered as the instance
 *   expects them.
 */
import type { Schema } from "../../connect/schema.ts";
import { describeValueType, Struct } from "../../connect/struct.ts";
import { type ConnectMap, mapEntries } from "../../connect/values.ts";
import { isNested, scalarJson } from "../render.ts";
import { MappingError } from "../record_error.ts";
import type { NestedBehavior, NullBehavior } from "../settings.ts";
import { type BodyField, duplicateNames } from "./body_field.ts";
import { applyNullRule } from "./nulls.ts";

export interface NestedRuleSettings {
  nestedBehavior: NestedBehavior;
  flattenDelimiter: string;
  nullBehavior: NullBehavior;
}

/** Longest list of nested paths quoted in a reject message. */
const QUOTED_PATHS = 5;

export function applyNestedRule(fields: readonly BodyField[], settings: NestedRuleSettings): BodyField[] {
  switch (settings.nestedBehavior) {
    case "reject":
      for (const field of fields) {
        if (isNested(field.value)) throw rejected(field);
      }
      return [...fields];
    case "stringify":
      return fields.map((field) =>
        isNested(field.value)
          ? { name: field.name, schema: null, value: nestedJson(field.schema, field.value, field.name) }
          : field
      );
    case "flatten": {
      const flat = fields.flatMap((field) => flatten(field, field.name, settings));
      const duplicates = duplicateNames(flat);
      if (duplicates.length > 0) {
        throw new MappingError(
          `svc.sink.nested.behavior=flatten gives more than one field the name ${
            duplicates.map((d) => `"${d}"`).join(", ")
          }`,
        );
      }
      return flat;
    }
  }
}

function rejected(field: BodyField): MappingError {
  const paths = leafPaths(field.schema, field.value, field.name);
  const shown = paths.slice(0, QUOTED_PATHS).join(", ") + (paths.length > QUOTED_PATHS ? ", …" : "");
  return new MappingError(
    `field "${field.name}" holds a nested ${kindOf(field.value)} (svc.sink.nested.behavior=reject)` +
      (paths.length > 0 ? `; nested paths: ${shown}` : ""),
  );
}

/** The leaf fields of a flattened value, named by their joined paths. */
function flatten(field: BodyField, path: string, settings: NestedRuleSettings): BodyField[] {
  const { value, schema } = field;
  if (Array.isArray(value)) {
    throw new MappingError(
      `field "${path}" is an array, which svc.sink.nested.behavior=flatten cannot turn into fields (use stringify)`,
    );
  }
  if (!isNested(value)) {
    const kept = applyNullRule(field, settings.nullBehavior, path);
    return kept === null ? [] : [kept];
  }
  return children(schema, value, path).flatMap((child) =>
    flatten(
      {
        name: `${field.name}${settings.flattenDelimiter}${child.name}`,
        schema: child.schema,
        value: child.value,
      },
      `${path}.${child.name}`,
      settings,
    )
  );
}

/** The members of a Struct or Map, with their schemas when the parent has one. */
function children(schema: Schema | null, value: unknown, path: string): BodyField[] {
  if (value instanceof Struct) {
    return value.schema.fields().map((f) => ({ name: f.name, schema: f.schema, value: value.get(f) }));
  }
  const valueSchema = schema?.type === "MAP" ? schema.valueSchema() : null;
  return mapEntries(value as ConnectMap).map(([key, member]) => {
    if (typeof key !== "string") {
      throw new MappingError(
        `field "${path}" is a Map with a ${describeValueType(key)} key; keys must be strings`,
      );
    }
    return { name: key, schema: valueSchema, value: member };
  });
}

function leafPaths(schema: Schema | null, value: unknown, path: string): string[] {
  if (Array.isArray(value)) return [`${path}[]`];
  if (!isNested(value)) return [path];
  try {
    const members = children(schema, value, path);
    return members.length === 0
      ? [path]
      : members.flatMap((m) => leafPaths(m.schema, m.value, `${path}.${m.name}`));
  } catch {
    return [path];
  }
}

function kindOf(value: unknown): string {
  if (value instanceof Struct) return "Struct";
  if (Array.isArray(value)) return "array";
  return "Map";
}

/** JSON text of a nested value. */
function nestedJson(schema: Schema | null, value: unknown, path: string): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) {
    const itemSchema = schema?.type === "ARRAY" ? schema.valueSchema() : null;
    return `[${value.map((item, i) => nestedJson(itemSchema, item, `${path}[${i}]`)).join(",")}]`;
  }
  if (isNested(value)) {
    const members = children(schema, value, path);
    return `{${
      members.map((m) => `${JSON.stringify(m.name)}:${nestedJson(m.schema, m.value, `${path}.${m.name}`)}`)
        .join(",")
    }}`;
  }
  return scalarJson(schema, value, path);
}
