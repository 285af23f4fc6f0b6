/**
 * Parses a raw string map against property definitions: typed values with defaults applied, and every
 * error attached to the property it concerns. The same result drives `validate`, the REST validate
 * endpoint and the typed props handed to connectors.
 */
import { isRequired, type PropertyDef } from "./def.ts";
import { coerce } from "./coerce.ts";
import type { PropValue, RawConfig } from "../common/props.ts";
import { suggest } from "./suggest.ts";

export interface Analysis {
  /** Applicable definitions, in documentation order. */
  defs: PropertyDef[];
  /** The raw (placeholder-resolved) values that were analysed. */
  raw: RawConfig;
  /** The values as the user wrote them (placeholders unresolved): what is shown back. */
  original: RawConfig;
  /** Typed values: every defined property (default applied) plus undefined keys as raw strings. */
  values: Record<string, PropValue>;
  /** Errors per property name, in the order found. Keys without a definition may carry errors too. */
  errors: Map<string, string[]>;
  /** Warnings per property name (only with `warnUnknownKeys`): what is accepted but probably not meant. */
  warnings: Map<string, string[]>;
}

export function addError(analysis: Analysis, key: string, message: string): void {
  addTo(analysis.errors, key, message);
}

function addTo(map: Map<string, string[]>, key: string, message: string): void {
  const list = map.get(key);
  if (list) {
    if (!list.includes(message)) list.push(message);
  } else map.set(key, [message]);
}

export function errorCount(analysis: Analysis): number {
  let n = 0;
  for (const list of analysis.errors.values()) n += list.length;
  return n;
}

/** Every error as "name: message" lines (for logs and the CLI). */
export function errorLines(analysis: Analysis): string[] {
  return messageLines(analysis.errors);
}

/** Every warning as "name: message" lines. */
export function warningLines(analysis: Analysis): string[] {
  return messageLines(analysis.warnings);
}

function messageLines(map: Map<string, string[]>): string[] {
  const lines: string[] = [];
  for (const [key, list] of map) for (const m of list) lines.push(`${key}: ${m}`);
  return lines;
}

/** Shows a value in a message; passwords are never shown. */
function shown(def: PropertyDef | undefined, raw: string): string {
  return def?.type === "PASSWORD" ? "[hidden]" : raw;
}

export interface AnalyzeOptions {
  /** Keys with these prefixes are accepted without a definition (framework pass-through). */
  passThroughPrefixes?: readonly string[];
  /** Unknown keys with these prefixes are errors (with a did-you-mean suggestion); others are accepted as Connect does. */
  strictPrefixes?: readonly string[];
  /** Extra names offered as suggestions for unknown keys (for example dynamic keys of other aliases). */
  extraSuggestions?: readonly string[];
  /** Keys accepted without a definition and without a word: another system's keys this one ignores. */
  acceptedKeys?: readonly string[];
  /**
   * Unknown keys that are no near miss of a definition (those are errors) get a warning, with a did-you-mean among
   * `acceptedKeys`; by default they are accepted silently, as Kafka Connect accepts them in connector configs.
   */
  warnUnknownKeys?: boolean;
}

export function analyze(defs: PropertyDef[], raw: RawConfig, options: AnalyzeOptions = {}): Analysis {
  const analysis: Analysis = { defs, raw, original: raw, values: {}, errors: new Map(), warnings: new Map() };
  const byName = new Map(defs.map((d) => [d.name, d]));

  for (const def of defs) {
    const given = raw[def.name];
    if (given === undefined && isRequired(def)) {
      addError(
        analysis,
        def.name,
        `Missing required configuration "${def.name}" which has no default value.`,
      );
      analysis.values[def.name] = null;
      continue;
    }
    const text = given ?? (def.default as string | null);
    const parsed = coerce(def, text);
    if (!parsed.ok) {
      addError(
        analysis,
        def.name,
        `Invalid value ${shown(def, text ?? "")} for configuration ${def.name}: ${parsed.reason}`,
      );
      analysis.values[def.name] = null;
      continue;
    }
    analysis.values[def.name] = parsed.value;
    const value = parsed.value;
    if (def.validValues && typeof value === "string" && value !== "" && !def.validValues.includes(value)) {
      const hint = def.validValues.find((v) => v.toLowerCase() === value.toLowerCase());
      addError(
        analysis,
        def.name,
        `Invalid value ${shown(def, value)} for configuration ${def.name}: String must be one of: ${
          def.validValues.join(", ")
        }${hint ? ` (values are case-sensitive: did you mean ${hint}?)` : ""}`,
      );
      continue;
    }
    const reason = def.validator?.(value);
    if (reason) {
      const rendered = Array.isArray(value) ? value.join(",") : String(value);
      addError(
        analysis,
        def.name,
        `Invalid value ${shown(def, rendered)} for configuration ${def.name}: ${reason}`,
      );
    }
  }

  const passThrough = options.passThroughPrefixes ?? [];
  const strict = options.strictPrefixes ?? [];
  const candidates = [...byName.keys(), ...(options.extraSuggestions ?? [])];
  const accepted = new Set(options.acceptedKeys ?? []);
  for (const [key, value] of Object.entries(raw)) {
    if (byName.has(key)) continue;
    analysis.values[key] = value;
    if (passThrough.some((p) => key.startsWith(p)) || accepted.has(key)) continue;
    const suggestion = suggest(key, candidates);
    if (strict.some((p) => key.startsWith(p))) {
      addError(analysis, key, `Unknown property ${key}${suggestion ? `; did you mean ${suggestion}?` : ""}`);
    } else if (suggestion) {
      // Kafka Connect accepts unknown keys; a near miss of a known key is almost always a typo, so say so.
      addError(analysis, key, `Unknown property ${key}; did you mean ${suggestion}?`);
    } else if (options.warnUnknownKeys) {
      const near = suggest(key, accepted);
      addTo(
        analysis.warnings,
        key,
        `Unknown property ${key} is ignored${near ? `; did you mean ${near}?` : ""}`,
      );
    }
  }
  return analysis;
}
