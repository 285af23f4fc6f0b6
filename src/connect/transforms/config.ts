/**
 * Config definitions of transforms and predicates, parsed the way Kafka's `ConfigDef` / `SimpleConfig` do, so that
 * a value Kafka accepts is accepted here with the same meaning and a value Kafka rejects is rejected with Kafka's
 * message (`Invalid value X for configuration Y: <reason>`, `Missing required configuration "Y" which has no
 * default value.`).
 *
 * Kafka's parsing rules reproduced here: STRING values are trimmed; LIST values are trimmed and split on commas
 * with surrounding whitespace (an empty string is an empty list, `a,,b` keeps the empty entry); BOOLEAN accepts
 * `true`/`false` in any case; INT is a 32-bit decimal integer.
 *
 * Deliberately free of imports from src/config: the config layer consumes these definitions as plain data.
 */
import { ConfigException } from "../errors.ts";

/** The ConfigDef types the transforms use (names as Connect's validate endpoint reports them). */
export type TransformConfigType = "STRING" | "LIST" | "BOOLEAN" | "INT" | "CLASS";
export type Importance = "HIGH" | "MEDIUM" | "LOW";

/** A parsed value: string, list of strings, boolean, integer, or null for an unset optional key. */
export type ConfigValue = string | string[] | boolean | number | null;

/** One key of a transform's config: Kafka's `ConfigDef.define(name, type, default, validator, importance, doc)`. */
export interface ConfigKeyDef {
  name: string;
  type: TransformConfigType;
  /** `undefined`: required (Kafka's NO_DEFAULT_VALUE). `null`: optional without a value. Otherwise the default text. */
  default?: string | null;
  importance: Importance;
  documentation: string;
  /** Allowed values (Kafka's `ValidString.in`), reported as recommended values. */
  validValues?: readonly string[];
  /** Compare `validValues` ignoring case (Kafka's `CaseInsensitiveValidString`). */
  caseInsensitive?: boolean;
  /** Extra check of the parsed value: returns the reason it is invalid, or undefined. */
  validator?: (value: ConfigValue) => string | undefined;
}

/**
 * A `ConfigException` that knows which key it is about, so validation can attach it to that key. Transforms throw
 * it from `configure` for checks that span several keys (e.g. InsertField's `static.value`).
 */
export class TransformConfigException extends ConfigException {
  constructor(readonly configName: string | null, message: string) {
    super(message);
    this.name = "ConfigException";
  }

  /** Kafka's `new ConfigException(name, value, message)` wording. */
  static invalid(name: string, value: unknown, reason: string): TransformConfigException {
    return new TransformConfigException(
      name,
      `Invalid value ${javaText(value)} for configuration ${name}: ${reason}`,
    );
  }
}

/** How Java prints a config value in messages: lists as `[a, b]`. */
export function javaText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.join(", ")}]`;
  return String(value);
}

/** The typed value of one raw property, or a `TransformConfigException` naming `name`. */
export function parseValue(def: ConfigKeyDef, name: string, raw: string): ConfigValue {
  const trimmed = raw.trim();
  switch (def.type) {
    case "STRING":
    case "CLASS":
      return trimmed;
    case "LIST":
      return trimmed === "" ? [] : trimmed.split(/\s*,\s*/);
    case "BOOLEAN": {
      const lower = trimmed.toLowerCase();
      if (lower === "true") return true;
      if (lower === "false") return false;
      throw TransformConfigException.invalid(name, raw, "Expected value to be either true or false");
    }
    case "INT": {
      const n = Number(trimmed);
      if (!/^[+-]?\d+$/.test(trimmed) || n < -(2 ** 31) || n > 2 ** 31 - 1) {
        throw TransformConfigException.invalid(name, raw, "Not a number of type INT");
      }
      return n;
    }
  }
}

function checkValid(def: ConfigKeyDef, name: string, value: ConfigValue): void {
  if (def.validValues && value !== null) {
    const text = String(value);
    const ok = def.caseInsensitive
      ? def.validValues.some((v) => v.toLowerCase() === text.toLowerCase())
      : def.validValues.includes(text);
    if (!ok) {
      const what = def.caseInsensitive ? "String must be one of (case insensitive)" : "String must be one of";
      throw TransformConfigException.invalid(name, value, `${what}: ${def.validValues.join(", ")}`);
    }
  }
  const reason = def.validator?.(value);
  if (reason !== undefined) throw TransformConfigException.invalid(name, value, reason);
}

/** Parses and checks one key; `prefix` is prepended to the key name in messages (e.g. `transforms.a.`). */
function parseKey(def: ConfigKeyDef, props: Readonly<Record<string, string>>, prefix: string): ConfigValue {
  const name = prefix + def.name;
  const raw = Object.hasOwn(props, def.name) ? props[def.name] : undefined;
  let value: ConfigValue;
  if (raw === undefined) {
    if (def.default === undefined) {
      throw new TransformConfigException(
        name,
        `Missing required configuration "${name}" which has no default value.`,
      );
    }
    value = def.default === null ? null : parseValue(def, name, def.default);
  } else {
    value = parseValue(def, name, raw);
  }
  checkValid(def, name, value);
  return value;
}

/** A transform's parsed config (Kafka's `SimpleConfig`): typed getters over validated values. */
export class TransformConfig {
  readonly #values: Map<string, ConfigValue>;

  constructor(defs: readonly ConfigKeyDef[], props: Readonly<Record<string, string>>) {
    this.#values = new Map(defs.map((def) => [def.name, parseKey(def, props, "")]));
  }

  #get(name: string): ConfigValue {
    if (!this.#values.has(name)) throw new Error(`Unknown configuration '${name}'`);
    return this.#values.get(name)!;
  }

  getString(name: string): string | null {
    return this.#get(name) as string | null;
  }
  getList(name: string): string[] {
    return (this.#get(name) as string[] | null) ?? [];
  }
  getBoolean(name: string): boolean {
    return this.#get(name) as boolean;
  }
  getInt(name: string): number | null {
    return this.#get(name) as number | null;
  }
}

/** Every problem with `props` against `defs`, keyed by `prefix + key` (Connect's validate, per key). */
export function validateKeys(
  defs: readonly ConfigKeyDef[],
  props: Readonly<Record<string, string>>,
  prefix: string,
): Map<string, string[]> {
  const errors = new Map<string, string[]>();
  for (const def of defs) {
    try {
      parseKey(def, props, prefix);
    } catch (e) {
      if (!(e instanceof TransformConfigException)) throw e;
      errors.set(prefix + def.name, [e.message]);
    }
  }
  return errors;
}

// ---- Validators shared by several transforms (Kafka's transforms.util validators and ConfigDef ones). ----

/** Kafka's `ConfigDef.NonEmptyString` (null passes: the key is optional). */
export function nonEmptyString(value: ConfigValue): string | undefined {
  return value === "" ? "String must be non-empty" : undefined;
}

/** Kafka's `NonEmptyListValidator`. */
export function nonEmptyList(value: ConfigValue): string | undefined {
  return Array.isArray(value) && value.length === 0 ? "Empty list" : undefined;
}

/** Kafka's `replace.null.with.default` key, shared by the transforms that copy struct fields. */
export const REPLACE_NULL_WITH_DEFAULT_DEF: ConfigKeyDef = {
  name: "replace.null.with.default",
  type: "BOOLEAN",
  default: "true",
  importance: "MEDIUM",
  documentation:
    "Whether to replace fields that have a default value and that are null to the default value. " +
    "When set to true, the default value is used, otherwise null is used.",
};
