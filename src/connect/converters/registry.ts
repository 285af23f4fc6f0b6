/**
 * Converter plugins by Java class name, so configs name converters exactly as in Kafka Connect
 * (`value.converter=org.apache.kafka.connect.json.JsonConverter`). Like Connect, a plugin can also be named by
 * its simple class name (`JsonConverter`) or that name without the `Converter` suffix (`Json`) when unique.
 *
 * The built-ins are registered in `defaultConverterRegistry`; other converters (the schema-registry Avro, JSON
 * Schema and Protobuf converters) plug in with `defaultConverterRegistry.register({ className, newConverter })`,
 * or deferred, `register({ className, kinds, load })`: their module is imported only once a task uses them.
 */
import { BYTE_ARRAY_CONVERTER_CLASS, ByteArrayConverter } from "./byte_array_converter.ts";
import type { Converter, HeaderConverter } from "./converter.ts";
import { JSON_CONVERTER_CLASS, JsonConverter } from "./json/json_converter.ts";
import { SIMPLE_HEADER_CONVERTER_CLASS, SimpleHeaderConverter } from "./simple_header_converter.ts";
import { STRING_CONVERTER_CLASS, StringConverter } from "./string_converter.ts";
import {
  AVRO_CONVERTER_CLASS,
  JSON_SCHEMA_CONVERTER_CLASS,
  PROTOBUF_CONVERTER_CLASS,
} from "../registry/registry_converter_classes.ts";

/** What a plugin can be used as: `key.converter`/`value.converter`, or `header.converter`. */
export type ConverterPluginKind = "converter" | "header_converter";

export interface ConverterPlugin {
  /** The fully qualified Java class name users put in configs. */
  readonly className: string;
  /** Creates a new, unconfigured key/value converter; absent when the plugin is not a `Converter`. */
  readonly newConverter?: () => Converter;
  /** Creates a new, unconfigured header converter; absent when the plugin is not a `HeaderConverter`. */
  readonly newHeaderConverter?: () => HeaderConverter;
}

/**
 * A plugin whose module is imported only when a task uses it (`ConverterRegistry.load`). The schema registry
 * converters bring avsc, protobufjs and ajv: about 10 MB in every isolate (the main thread's and each task
 * worker's) that a daemon converting JSON never needs.
 */
export interface DeferredConverterPlugin {
  readonly className: string;
  readonly kinds: readonly ConverterPluginKind[];
  readonly load: () => Promise<ConverterPlugin>;
}

type AnyPlugin = ConverterPlugin | DeferredConverterPlugin;

export function isDeferred(plugin: AnyPlugin): plugin is DeferredConverterPlugin {
  return "load" in plugin;
}

function supports(plugin: AnyPlugin, kind: ConverterPluginKind): boolean {
  if (isDeferred(plugin)) return plugin.kinds.includes(kind);
  return kind === "converter" ? plugin.newConverter !== undefined : plugin.newHeaderConverter !== undefined;
}

function aliasesOf(className: string): string[] {
  const simple = className.slice(className.lastIndexOf(".") + 1);
  const pruned = simple.endsWith("Converter") && simple !== "Converter"
    ? simple.slice(0, -"Converter".length)
    : null;
  return pruned === null ? [simple] : [simple, pruned];
}

export class ConverterRegistry {
  readonly #plugins = new Map<string, AnyPlugin>();

  /** Adds a plugin; throws if its class name is already registered. */
  register(plugin: AnyPlugin): this {
    if (this.#plugins.has(plugin.className)) {
      throw new Error(`Converter class ${plugin.className} is already registered`);
    }
    this.#plugins.set(plugin.className, plugin);
    return this;
  }

  /** Every registered class name usable as `kind`, sorted. */
  classNames(kind: ConverterPluginKind): string[] {
    return [...this.#plugins.values()].filter((p) => supports(p, kind)).map((p) => p.className).sort();
  }

  /** The plugin for a class name or unique alias (deferred until `load`ed), or null when none matches. */
  resolve(name: string): AnyPlugin | null {
    const exact = this.#plugins.get(name);
    if (exact !== undefined) return exact;
    const matches = [...this.#plugins.values()].filter((p) => aliasesOf(p.className).includes(name));
    return matches.length === 1 ? matches[0] : null;
  }

  /** The plugin named by `name`, its module imported first when it is deferred; null for an unknown name. */
  async load(name: string): Promise<ConverterPlugin | null> {
    const plugin = this.resolve(name);
    if (plugin === null || !isDeferred(plugin)) return plugin;
    const loaded = await plugin.load();
    this.#plugins.set(plugin.className, loaded);
    return loaded;
  }
}

/** A registry holding only the built-in converters (useful for tests that must not see later registrations). */
export function builtinConverterRegistry(): ConverterRegistry {
  return new ConverterRegistry()
    .register({
      className: JSON_CONVERTER_CLASS,
      newConverter: () => new JsonConverter(),
      newHeaderConverter: () => new JsonConverter(),
    })
    .register({
      className: STRING_CONVERTER_CLASS,
      newConverter: () => new StringConverter(),
      newHeaderConverter: () => new StringConverter(),
    })
    .register({
      className: BYTE_ARRAY_CONVERTER_CLASS,
      newConverter: () => new ByteArrayConverter(),
      newHeaderConverter: () => new ByteArrayConverter(),
    })
    .register({
      className: SIMPLE_HEADER_CONVERTER_CLASS,
      newHeaderConverter: () => new SimpleHeaderConverter(),
    });
}

/** A key/value converter plugin whose class is imported by `load`. */
function deferredConverter(
  className: string,
  load: () => Promise<new () => Converter>,
): DeferredConverterPlugin {
  return {
    className,
    kinds: ["converter"],
    load: async () => {
      const Class = await load();
      return { className, newConverter: () => new Class() };
    },
  };
}

/**
 * The process-wide registry the factory uses by default: the built-ins plus the schema registry converters
 * (src/connect/registry/), deferred, which need their async prepare step awaited (preparing_converter.ts).
 */
export const defaultConverterRegistry: ConverterRegistry = builtinConverterRegistry()
  .register(deferredConverter(
    AVRO_CONVERTER_CLASS,
    async () => (await import("../registry/avro/avro_converter.ts")).AvroConverter,
  ))
  .register(deferredConverter(
    JSON_SCHEMA_CONVERTER_CLASS,
    async () => (await import("../registry/json_schema/json_schema_converter.ts")).JsonSchemaConverter,
  ))
  .register(deferredConverter(
    PROTOBUF_CONVERTER_CLASS,
    async () => (await import("../registry/protobuf/protobuf_converter.ts")).ProtobufConverter,
  ));
