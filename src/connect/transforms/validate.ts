/**
 * Validation of a connector's `transforms*` and `predicates*` keys, shaped for Connect's validate endpoint: the
 * definitions of every key each alias brings (group `Transforms: <alias>` / `Predicates: <alias>`, in Connect's
 * order: `type`, then for transformations `predicate` and `negate`, then the class's own keys) and the errors per
 * key.
 *
 * Reported: duplicate aliases; a missing or unknown `type` (the message names the key, hence the alias, the class
 * and the supported classes); a `predicate` alias not listed in `predicates`; missing or invalid keys of each
 * class, with Kafka's messages. Beyond what Connect's validate reports, the class is also configured, so
 * cross-key problems that Connect only finds when the connector starts (e.g. InsertField without any field,
 * TimestampConverter `target.type=string` without `format`) are reported too.
 *
 * Returns plain data and depends on nothing in src/config.
 */
import { aliasList, unknownClassMessage, withPrefix } from "./chain.ts";
import {
  type ConfigKeyDef,
  type Importance,
  parseValue,
  TransformConfigException,
  type TransformConfigType,
  validateKeys,
} from "./config.ts";
import { findPredicate, findTransformation } from "./registry.ts";
import type { PredicatePlugin, TransformationPlugin } from "./types.ts";

/** One key's definition as the validate endpoint reports it (structurally a src/config `PropertyDef`). */
export interface TransformKeyDefinition {
  name: string;
  type: TransformConfigType;
  /** `undefined`: required. `null`: optional without a value. Otherwise the default text. */
  default?: string | null;
  importance: Importance;
  documentation: string;
  group: string;
  validValues?: readonly string[];
}

export interface TransformValidation {
  /** Error messages by full key name (e.g. `transforms.route.regex`); keys without errors are absent. */
  errors: Map<string, string[]>;
  /** Definitions of every key the configured aliases bring, grouped per alias, in Connect's order. */
  defs: TransformKeyDefinition[];
}

type Kind = "transformation" | "predicate";

class Report {
  readonly errors = new Map<string, string[]>();
  readonly defs: TransformKeyDefinition[] = [];

  error(key: string, message: string): void {
    const list = this.errors.get(key) ?? [];
    if (!list.includes(message)) list.push(message);
    this.errors.set(key, list);
  }

  define(prefix: string, group: string, defs: readonly ConfigKeyDef[]): void {
    for (const def of defs) {
      this.defs.push({
        name: prefix + def.name,
        type: def.type,
        default: def.default,
        importance: def.importance,
        documentation: def.documentation,
        group,
        ...(def.validValues ? { validValues: def.validValues } : {}),
      });
    }
  }
}

function typeDef(alias: string, kind: Kind): ConfigKeyDef {
  return {
    name: "type",
    type: "CLASS",
    importance: "HIGH",
    documentation: `Class for the '${alias}' ${kind}.`,
  };
}

/** The keys Connect gives every transformation implicitly. */
const PREDICATE_DEF: ConfigKeyDef = {
  name: "predicate",
  type: "STRING",
  default: null,
  importance: "MEDIUM",
  documentation: "The alias of a predicate used to determine whether to apply this transformation.",
};
const NEGATE_DEF: ConfigKeyDef = {
  name: "negate",
  type: "BOOLEAN",
  default: "false",
  importance: "MEDIUM",
  documentation: "Whether the configured predicate should be negated.",
};

function uniqueAliases(
  config: Readonly<Record<string, string>>,
  key: "transforms" | "predicates",
  report: Report,
) {
  const aliases = aliasList(config, key);
  if (new Set(aliases).size !== aliases.length) {
    report.error(key, `Invalid value ${config[key]} for configuration ${key}: Duplicate alias provided.`);
  }
  return [...new Set(aliases)];
}

/** The plugin named by `<prefix>type`, or null after reporting why there is none. */
function lookUp(
  config: Readonly<Record<string, string>>,
  prefix: string,
  kind: Kind,
  report: Report,
): TransformationPlugin | PredicatePlugin | null {
  const key = `${prefix}type`;
  const className = config[key]?.trim();
  if (className === undefined || className === "") {
    report.error(key, `Missing required configuration "${key}" which has no default value.`);
    return null;
  }
  const plugin = kind === "transformation" ? findTransformation(className) : findPredicate(className);
  if (plugin === null) report.error(key, unknownClassMessage(key, className, kind));
  return plugin;
}

/** Checks the class's own keys, then (if they are valid) configures an instance to find cross-key problems. */
function checkPluginKeys(
  config: Readonly<Record<string, string>>,
  prefix: string,
  plugin: TransformationPlugin | PredicatePlugin,
  report: Report,
): void {
  const props = withPrefix(config, prefix);
  const keyErrors = validateKeys(plugin.configDef, props, prefix);
  for (const [key, messages] of keyErrors) for (const m of messages) report.error(key, m);
  if (keyErrors.size > 0) return;
  const instance = plugin.create();
  try {
    instance.configure(props);
  } catch (e) {
    const key = e instanceof TransformConfigException && e.configName !== null
      ? prefix + e.configName
      : `${prefix}type`;
    report.error(key, (e as Error).message);
  } finally {
    instance.close();
  }
}

function checkTransformation(
  config: Readonly<Record<string, string>>,
  alias: string,
  predicates: readonly string[],
  report: Report,
): void {
  const prefix = `transforms.${alias}.`;
  const group = `Transforms: ${alias}`;
  report.define(prefix, group, [typeDef(alias, "transformation"), PREDICATE_DEF, NEGATE_DEF]);
  const predicate = config[`${prefix}predicate`]?.trim();
  if (predicate && !predicates.includes(predicate)) {
    report.error(
      `${prefix}predicate`,
      `Invalid value ${predicate} for configuration ${prefix}predicate: predicate '${predicate}' is not listed in predicates`,
    );
  }
  const negate = config[`${prefix}negate`];
  if (negate !== undefined) {
    try {
      parseValue(NEGATE_DEF, `${prefix}negate`, negate);
    } catch (e) {
      report.error(`${prefix}negate`, (e as Error).message);
    }
  }
  const plugin = lookUp(config, prefix, "transformation", report);
  if (plugin === null) return;
  report.define(prefix, group, plugin.configDef);
  checkPluginKeys(config, prefix, plugin, report);
}

function checkPredicate(config: Readonly<Record<string, string>>, alias: string, report: Report): void {
  const prefix = `predicates.${alias}.`;
  const group = `Predicates: ${alias}`;
  report.define(prefix, group, [typeDef(alias, "predicate")]);
  const plugin = lookUp(config, prefix, "predicate", report);
  if (plugin === null) return;
  report.define(prefix, group, plugin.configDef);
  checkPluginKeys(config, prefix, plugin, report);
}

/** Validates every transformation and predicate alias of a connector config (see the module comment). */
export function validateTransforms(config: Readonly<Record<string, string>>): TransformValidation {
  const report = new Report();
  const transforms = uniqueAliases(config, "transforms", report);
  const predicates = uniqueAliases(config, "predicates", report);
  for (const alias of transforms) checkTransformation(config, alias, predicates, report);
  for (const alias of predicates) checkPredicate(config, alias, report);
  return { errors: report.errors, defs: report.defs };
}
