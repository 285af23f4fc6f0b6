/**
 * Builds and runs a connector's transformation chain from its flat config, as Kafka Connect does:
 *
 * ```
 * transforms=dropTest,route
 * transforms.dropTest.type=org.apache.kafka.connect.transforms.Filter
 * transforms.dropTest.predicate=isTest
 * transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter
 * transforms.route.regex=(.*)
 * transforms.route.replacement=sn.$1
 * predicates=isTest
 * predicates.isTest.type=org.apache.kafka.connect.transforms.predicates.TopicNameMatches
 * predicates.isTest.pattern=test-.*
 * ```
 *
 * Each transformation receives its own keys (`transforms.<alias>.*` without the prefix); a transformation with a
 * `predicate` runs only on records the predicate matches — or, with `negate=true`, does not match. Each
 * transformation gets its own predicate instance. Transformations run in the listed order; a null result drops
 * the record and ends the chain.
 *
 * Configuration problems throw `ConfigException` naming the alias and class; failures on a record throw
 * `TransformationError` (alias, class, cause), which the runtime's error handler tolerates per
 * `errors.tolerance`.
 */
import { ConfigException } from "../errors.ts";
import type { ConnectRecord } from "../record.ts";
import { parseValue } from "./config.ts";
import {
  findPredicate,
  findTransformation,
  predicateClassNames,
  transformationClassNames,
} from "./registry.ts";
import { TransformationError } from "./transformation_error.ts";
import type { Predicate, Transformation } from "./types.ts";

/** One configured step of a chain. */
interface Stage<R extends ConnectRecord<R>> {
  alias: string;
  className: string;
  transformation: Transformation<R>;
  predicate: Predicate<R> | null;
  negate: boolean;
}

export interface TransformChain<R extends ConnectRecord<R>> {
  /** The aliases and classes of the stages, in order. */
  readonly stages: readonly { alias: string; className: string }[];
  /** The record after every stage, or null when a stage dropped it. */
  apply(record: R): R | null;
  /** Closes every transformation and predicate. */
  close(): void;
}

/** Kafka's LIST parsing of `transforms` / `predicates`. */
export function aliasList(
  config: Readonly<Record<string, string>>,
  key: "transforms" | "predicates",
): string[] {
  const raw = config[key];
  return raw === undefined
    ? []
    : parseValue({ name: key, type: "LIST", importance: "LOW", documentation: "" }, key, raw) as string[];
}

/** The keys under `prefix`, with the prefix removed (Kafka's `originalsWithPrefix`). */
export function withPrefix(config: Readonly<Record<string, string>>, prefix: string): Record<string, string> {
  const props: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    if (key.startsWith(prefix)) props[key.slice(prefix.length)] = value;
  }
  return props;
}

/** Kafka's message for a class that cannot be loaded, plus the classes tablesync provides. */
export function unknownClassMessage(
  key: string,
  className: string,
  kind: "transformation" | "predicate",
): string {
  const supported = kind === "transformation" ? transformationClassNames() : predicateClassNames();
  return `Invalid value ${className} for configuration ${key}: Class ${className} could not be found. ` +
    `Supported ${kind} classes: ${supported.join(", ")}`;
}

function requireType(config: Readonly<Record<string, string>>, key: string): string {
  const raw = config[key];
  if (raw === undefined || raw.trim() === "") {
    throw new ConfigException(`Missing required configuration "${key}" which has no default value.`);
  }
  return raw.trim();
}

function configureFailed(kind: string, alias: string, className: string, e: unknown): ConfigException {
  return new ConfigException(
    `Invalid configuration of ${kind} '${alias}' (${className}): ${(e as Error).message}`,
    {
      cause: e,
    },
  );
}

function checkUnique(aliases: string[], key: string, raw: string | undefined): void {
  if (new Set(aliases).size !== aliases.length) {
    throw ConfigException.invalidValue(key, raw, "Duplicate alias provided.");
  }
}

function createPredicate<R extends ConnectRecord<R>>(
  config: Readonly<Record<string, string>>,
  alias: string,
): Predicate<R> {
  const typeKey = `predicates.${alias}.type`;
  const className = requireType(config, typeKey);
  const plugin = findPredicate(className);
  if (plugin === null) throw new ConfigException(unknownClassMessage(typeKey, className, "predicate"));
  const predicate = plugin.create<R>();
  try {
    predicate.configure(withPrefix(config, `predicates.${alias}.`));
  } catch (e) {
    throw configureFailed("predicate", alias, className, e);
  }
  return predicate;
}

function createStage<R extends ConnectRecord<R>>(
  config: Readonly<Record<string, string>>,
  alias: string,
  predicateAliases: readonly string[],
): Stage<R> {
  const prefix = `transforms.${alias}.`;
  const className = requireType(config, `${prefix}type`);
  const plugin = findTransformation(className);
  if (plugin === null) {
    throw new ConfigException(unknownClassMessage(`${prefix}type`, className, "transformation"));
  }
  const predicateAlias = config[`${prefix}predicate`]?.trim() || null;
  if (predicateAlias !== null && !predicateAliases.includes(predicateAlias)) {
    throw ConfigException.invalidValue(
      `${prefix}predicate`,
      predicateAlias,
      `predicate '${predicateAlias}' is not listed in predicates`,
    );
  }
  const negateRaw = config[`${prefix}negate`];
  const negate = negateRaw === undefined ? false : parseValue(
    { name: "negate", type: "BOOLEAN", importance: "LOW", documentation: "" },
    `${prefix}negate`,
    negateRaw,
  ) as boolean;
  const transformation = plugin.create<R>();
  try {
    transformation.configure(withPrefix(config, prefix));
  } catch (e) {
    throw configureFailed("transformation", alias, className, e);
  }
  const predicate = predicateAlias === null ? null : createPredicate<R>(config, predicateAlias);
  return { alias, className, transformation, predicate, negate };
}

/**
 * The chain configured by a connector's `transforms*` and `predicates*` keys (other keys are ignored). Throws
 * `ConfigException` for an invalid chain. Works for source and sink records alike.
 */
export function buildTransformChain<R extends ConnectRecord<R>>(
  config: Readonly<Record<string, string>>,
): TransformChain<R> {
  const aliases = aliasList(config, "transforms");
  const predicateAliases = aliasList(config, "predicates");
  checkUnique(aliases, "transforms", config.transforms);
  checkUnique(predicateAliases, "predicates", config.predicates);
  // Like Connect, every listed predicate must be valid even if no transformation uses it.
  for (const alias of predicateAliases) createPredicate(config, alias).close();
  const stages: Stage<R>[] = [];
  try {
    for (const alias of aliases) stages.push(createStage<R>(config, alias, predicateAliases));
  } catch (e) {
    closeStages(stages);
    throw e;
  }
  return {
    stages: stages.map(({ alias, className }) => ({ alias, className })),
    apply: (record) => applyStages(stages, record),
    close: () => closeStages(stages),
  };
}

function applyStages<R extends ConnectRecord<R>>(stages: readonly Stage<R>[], record: R): R | null {
  let current: R | null = record;
  for (const stage of stages) {
    if (current === null) return null;
    try {
      // Kafka's PredicatedTransformation: apply when negate XOR test(record).
      if (stage.predicate === null || stage.negate !== stage.predicate.test(current)) {
        current = stage.transformation.apply(current);
      }
    } catch (e) {
      throw new TransformationError(stage.alias, stage.className, e);
    }
  }
  return current;
}

function closeStages<R extends ConnectRecord<R>>(stages: readonly Stage<R>[]): void {
  for (const stage of stages) {
    stage.transformation.close();
    stage.predicate?.close();
  }
}
