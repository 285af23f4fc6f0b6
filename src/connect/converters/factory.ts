/**
 * Builds a task's key, value and header converters from Connect's properties, the way Kafka Connect's worker
 * does (`Worker.startTask` → `Plugins.newConverter` / `newHeaderConverter`):
 *
 * 1. If the connector config contains the class property (`key.converter`, `value.converter`,
 *    `header.converter`), that class is used with the connector config's prefixed settings.
 * 2. Otherwise the worker config's class is used, with the worker config's prefixed settings; when the worker
 *    does not set it either, Connect's defaults apply: JsonConverter for keys and values, SimpleHeaderConverter
 *    for headers.
 *
 * Settings are the properties under `<class property>.` with that prefix removed, plus `converter.type`
 * (`key`/`value`/`header`): `value.converter.schemas.enable=false` reaches the value converter as
 * `schemas.enable=false`. As in Connect, prefixed settings are only read from the level that chose the class —
 * a connector that sets `value.converter.schemas.enable` without `value.converter` does not change the worker's
 * converter (a well-known Connect pitfall, kept for compatibility).
 */
import { ConfigException } from "../errors.ts";
import {
  type Converter,
  CONVERTER_TYPE_CONFIG,
  type ConverterType,
  type HeaderConverter,
} from "./converter.ts";
import { JSON_CONVERTER_CLASS } from "./json/json_converter.ts";
import {
  type ConverterPlugin,
  type ConverterPluginKind,
  type ConverterRegistry,
  defaultConverterRegistry,
  isDeferred,
} from "./registry.ts";
import { SIMPLE_HEADER_CONVERTER_CLASS } from "./simple_header_converter.ts";

const KEY_CONVERTER_CLASS_CONFIG = "key.converter";
const VALUE_CONVERTER_CLASS_CONFIG = "value.converter";
const HEADER_CONVERTER_CLASS_CONFIG = "header.converter";

/** Connect's defaults when neither the connector nor the worker names a converter. */
const DEFAULT_KEY_CONVERTER_CLASS = JSON_CONVERTER_CLASS;
const DEFAULT_VALUE_CONVERTER_CLASS = JSON_CONVERTER_CLASS;
const DEFAULT_HEADER_CONVERTER_CLASS = SIMPLE_HEADER_CONVERTER_CLASS;

type Config = Readonly<Record<string, string>>;

/** Where a converter's class came from, for the "Set up the value converter ... using the worker config" log. */
export type ConverterConfigLevel = "connector" | "worker" | "default";

export interface ConverterChoice {
  readonly className: string;
  readonly level: ConverterConfigLevel;
  /** The settings passed to `configure` (prefix removed, `converter.type` added). */
  readonly settings: Readonly<Record<string, string>>;
}

export interface TaskConverters {
  readonly keyConverter: Converter;
  readonly valueConverter: Converter;
  readonly headerConverter: HeaderConverter;
  /** How each converter was chosen, for logging. */
  readonly choices: Readonly<Record<"key" | "value" | "header", ConverterChoice>>;
}

/** Connect's `originalsWithPrefix`: the entries under `prefix`, with the prefix removed. */
function settingsWithPrefix(config: Config, prefix: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    if (key.startsWith(prefix)) result[key.slice(prefix.length)] = value;
  }
  return result;
}

/** Picks the class and settings for one class property (see module comment for the precedence). */
function chooseConverter(
  classProperty: string,
  type: ConverterType,
  connectorConfig: Config,
  workerConfig: Config,
  defaultClass: string,
): ConverterChoice {
  let level: ConverterConfigLevel;
  let source: Config;
  if (Object.hasOwn(connectorConfig, classProperty)) [level, source] = ["connector", connectorConfig];
  else if (Object.hasOwn(workerConfig, classProperty)) [level, source] = ["worker", workerConfig];
  else [level, source] = ["default", workerConfig];
  const className = level === "default" ? defaultClass : source[classProperty].trim();
  const settings = { ...settingsWithPrefix(source, `${classProperty}.`), [CONVERTER_TYPE_CONFIG]: type };
  return Object.freeze({ className, level, settings: Object.freeze(settings) });
}

function unknownClass(
  registry: ConverterRegistry,
  classProperty: string,
  className: string,
  kind: ConverterPluginKind,
  reason: string,
): ConfigException {
  const what = kind === "converter" ? "converter" : "header converter";
  return ConfigException.invalidValue(
    classProperty,
    className,
    `${reason} Supported ${what} classes: ${registry.classNames(kind).join(", ")}`,
  );
}

/** The plugin a choice names, able to make `kind`; a ConfigException naming the property and class otherwise. */
function pluginFor(
  registry: ConverterRegistry,
  classProperty: string,
  choice: ConverterChoice,
  kind: ConverterPluginKind,
): ConverterPlugin {
  const plugin = registry.resolve(choice.className);
  if (plugin === null) {
    throw unknownClass(
      registry,
      classProperty,
      choice.className,
      kind,
      `Class ${choice.className} could not be found.`,
    );
  }
  if (isDeferred(plugin)) {
    throw new Error(
      `converter class ${plugin.className} is not loaded: await loadTaskConverterPlugins first`,
    );
  }
  const able = kind === "converter" ? plugin.newConverter : plugin.newHeaderConverter;
  if (able === undefined) {
    const what = kind === "converter" ? "Converter" : "HeaderConverter";
    throw unknownClass(
      registry,
      classProperty,
      choice.className,
      kind,
      `Class ${choice.className} is not a ${what}.`,
    );
  }
  return plugin;
}

/** Instantiates and configures a key or value converter for a choice. */
function newConverter(
  registry: ConverterRegistry,
  classProperty: string,
  choice: ConverterChoice,
  isKey: boolean,
): Converter {
  const converter = pluginFor(registry, classProperty, choice, "converter").newConverter!();
  converter.configure(choice.settings, isKey);
  return converter;
}

/** Instantiates and configures a header converter for a choice. */
function newHeaderConverter(
  registry: ConverterRegistry,
  classProperty: string,
  choice: ConverterChoice,
): HeaderConverter {
  const converter = pluginFor(registry, classProperty, choice, "header_converter").newHeaderConverter!();
  converter.configure(choice.settings);
  return converter;
}

/**
 * The three converters for a task of a connector. Throws `ConfigException` (naming the property and class, and
 * listing the supported classes) for an unknown class, or the converter's own `ConfigException` for bad settings.
 */
export function createTaskConverters(
  connectorConfig: Config,
  workerConfig: Config = {},
  registry: ConverterRegistry = defaultConverterRegistry,
): TaskConverters {
  const { key, value, header } = taskConverterChoices(connectorConfig, workerConfig);
  return {
    keyConverter: newConverter(registry, KEY_CONVERTER_CLASS_CONFIG, key, true),
    valueConverter: newConverter(registry, VALUE_CONVERTER_CLASS_CONFIG, value, false),
    headerConverter: newHeaderConverter(registry, HEADER_CONVERTER_CLASS_CONFIG, header),
    choices: Object.freeze({ key, value, header }),
  };
}

/** Imports the deferred plugins (registry.ts) a task's converters need; call before `createTaskConverters`. */
export async function loadTaskConverterPlugins(
  connectorConfig: Config,
  workerConfig: Config = {},
  registry: ConverterRegistry = defaultConverterRegistry,
): Promise<void> {
  const choices = taskConverterChoices(connectorConfig, workerConfig);
  for (const choice of Object.values(choices)) await registry.load(choice.className);
}

function taskConverterChoices(
  connectorConfig: Config,
  workerConfig: Config,
): Record<"key" | "value" | "header", ConverterChoice> {
  const key = chooseConverter(
    KEY_CONVERTER_CLASS_CONFIG,
    "key",
    connectorConfig,
    workerConfig,
    DEFAULT_KEY_CONVERTER_CLASS,
  );
  const value = chooseConverter(
    VALUE_CONVERTER_CLASS_CONFIG,
    "value",
    connectorConfig,
    workerConfig,
    DEFAULT_VALUE_CONVERTER_CLASS,
  );
  const header = chooseConverter(
    HEADER_CONVERTER_CLASS_CONFIG,
    "header",
    connectorConfig,
    workerConfig,
    DEFAULT_HEADER_CONVERTER_CLASS,
  );
  return { key, value, header };
}
