/**
 * Kafka Connect's ConfigInfos shape for the validate command and `PUT /connector-plugins/<class>/config/validate`.
 * Passwords show as [hidden]; the order follows the definitions, then keys without a definition.
 */
import { type Analysis, errorCount } from "./analyze.ts";
import { isRequired, type PropertyDef } from "./def.ts";
import { render } from "./coerce.ts";

export interface ConfigKeyInfo {
  name: string;
  type: string;
  required: boolean;
  default_value: string | null;
  importance: string;
  documentation: string;
  group: string;
  order: number;
  width: string;
  display_name: string;
  dependents: string[];
}

export interface ConfigValueInfo {
  name: string;
  value: string | null;
  recommended_values: string[];
  errors: string[];
  visible: boolean;
}

export interface ConfigInfo {
  definition: ConfigKeyInfo | null;
  value: ConfigValueInfo | null;
}

export interface ConfigInfos {
  name: string;
  error_count: number;
  groups: string[];
  configs: ConfigInfo[];
}

export function configKeyInfo(def: PropertyDef, order: number): ConfigKeyInfo {
  return {
    name: def.name,
    type: def.type,
    required: isRequired(def),
    default_value: def.default ?? null,
    importance: def.importance,
    documentation: def.documentation,
    group: def.group,
    order,
    width: def.width ?? "NONE",
    display_name: def.displayName ?? def.name,
    dependents: [...(def.dependents ?? [])],
  };
}

/** Names of pass-through keys (client overrides, converter settings) that carry credentials. */
const SECRET_NAME = /password|secret|jaas|token|credential|user\.info|private/i;

/** Whether a property's value must be shown as [hidden]. */
export function isSecretProperty(def: PropertyDef | undefined, name: string): boolean {
  return def ? def.type === "PASSWORD" : SECRET_NAME.test(name);
}

function shownValue(def: PropertyDef | undefined, analysis: Analysis, name: string): string | null {
  const given = analysis.original[name];
  if (isSecretProperty(def, name)) return given !== undefined || def?.default ? "[hidden]" : null;
  if (given !== undefined) return given;
  return def ? render(analysis.values[name] ?? null) : null;
}

export function configInfos(name: string, analysis: Analysis): ConfigInfos {
  const groups: string[] = [];
  const orderInGroup = new Map<string, number>();
  const configs: ConfigInfo[] = [];
  const covered = new Set<string>();
  for (const def of analysis.defs) {
    if (!groups.includes(def.group)) groups.push(def.group);
    const order = (orderInGroup.get(def.group) ?? 0) + 1;
    orderInGroup.set(def.group, order);
    covered.add(def.name);
    configs.push({
      definition: configKeyInfo(def, order),
      value: {
        name: def.name,
        value: shownValue(def, analysis, def.name),
        recommended_values: [...(def.validValues ?? [])],
        errors: analysis.errors.get(def.name) ?? [],
        visible: true,
      },
    });
  }
  const extra = new Set([...Object.keys(analysis.original), ...analysis.errors.keys()]);
  for (const key of extra) {
    if (covered.has(key)) continue;
    configs.push({
      definition: null,
      value: {
        name: key,
        value: shownValue(undefined, analysis, key),
        recommended_values: [],
        errors: analysis.errors.get(key) ?? [],
        visible: true,
      },
    });
  }
  return { name, error_count: errorCount(analysis), groups, configs };
}
