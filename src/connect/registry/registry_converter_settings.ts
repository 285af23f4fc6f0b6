/**
 * Serializer settings shared by the three registry converters, with Confluent's names and defaults (each
 * setting and its meaning: docs/schema-registry.md, "Configuration"). Registry connection settings:
 * client/registry_client_settings.ts.
 */
import { booleanSetting, intSetting } from "../converters/config_values.ts";
import type { ConverterConfig } from "../converters/converter.ts";
import { parseRegistryClientSettings } from "./client/registry_client_settings.ts";
import { subjectNameStrategy } from "./subject_name_strategy.ts";

export type RegistryConverterSettings = ReturnType<typeof parseRegistryConverterSettings>;

export function parseRegistryConverterSettings(
  configs: ConverterConfig,
  isKey: boolean,
) {
  return Object.freeze({
    client: parseRegistryClientSettings(configs),
    autoRegisterSchemas: booleanSetting(configs, "auto.register.schemas", true),
    useLatestVersion: booleanSetting(configs, "use.latest.version", false),
    normalizeSchemas: booleanSetting(configs, "normalize.schemas", false),
    subjectNameStrategy: subjectNameStrategy(configs, isKey),
    schemasCacheSize: intSetting(configs, "schemas.cache.size", 1000, 1),
  });
}
