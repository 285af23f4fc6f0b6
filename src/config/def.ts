/**
 * A property definition: the one place where a property's type, default, valid values, importance,
 * documentation and group are declared. Parsing, defaults, validation, the validate command and
 * endpoint (Kafka Connect's ConfigInfos) and docs/configuration.md are all derived from these.
 */
import type { PropValue } from "../common/props.ts";

/** Kafka Connect's ConfigDef.Type names, as the validate endpoint reports them. */
export type PropType =
  | "STRING"
  | "INT"
  | "SHORT"
  | "LONG"
  | "DOUBLE"
  | "BOOLEAN"
  | "LIST"
  | "PASSWORD"
  | "CLASS";
export type Importance = "HIGH" | "MEDIUM" | "LOW";
export type Width = "NONE" | "SHORT" | "MEDIUM" | "LONG";

/**
 * Checks one typed value; returns a reason (completing "Invalid value X for configuration Y: <reason>") or undefined.
 * `describe` is the docs' "valid values" text; `schema` is the same rule as JSON Schema keywords for the typed value
 * (for a LIST, for each entry), so the published config schema checks what validation checks.
 */
export type Validator = ((value: PropValue) => string | undefined) & {
  describe?: string;
  schema?: Readonly<Record<string, unknown>>;
};

export interface PropertyDef {
  name: string;
  type: PropType;
  /** `undefined`: required (no default). `null`: optional with no value. Otherwise the default as a string. */
  default?: string | null;
  /** Allowed values, for validation, the validate endpoint's recommended values and the docs. */
  validValues?: readonly string[];
  /** Extra check on the typed value (ranges, patterns). */
  validator?: Validator;
  importance: Importance;
  documentation: string;
  group: string;
  width?: Width;
  displayName?: string;
  dependents?: readonly string[];
}

/** True when the definition has no default, so the property must be set. */
export function isRequired(def: PropertyDef): boolean {
  return def.default === undefined;
}

type DefOptions = Omit<PropertyDef, "name" | "type" | "documentation" | "importance" | "group"> & {
  importance?: Importance;
};

/** Builds definitions for one group with a compact syntax: `prop(name, type, doc, options)`. */
export function group(groupName: string) {
  return (name: string, type: PropType, documentation: string, options: DefOptions = {}): PropertyDef => ({
    name,
    type,
    documentation,
    importance: options.importance ?? "MEDIUM",
    group: groupName,
    ...options,
  });
}
