/**
 * Serializer settings shared by the three registry converters (Confluent's names and defaults):
 *
 * | Setting                                          | Default             | Meaning                                  |
 * |--------------------------------------------------|---------------------|------------------------------------------|
 * | `auto.register.schemas`                          | `true`              | register the record's schema under its subject |
 * | `use.latest.version`                             | `false`             | with auto-register off: write with the subject's latest schema |
 * | `normalize.schemas`                              | `false`             | ask the registry to normalize on register/lookup |
 * | `key.subject.name.strategy` / `value.subject.name.strategy` | `TopicNameStrategy` | see subject_name_strategy.ts |
 * | `schemas.cache.size`                             | `1000`              | schemas remembered per cache             |
 *
 * With both `auto.register.schemas=false` and `use.latest.version=false` the schema must already be registered
 * (it is looked up). Registry connection settings: client/registry_client_settings.ts.
 */
import { booleanSetting, intSetting } from "../converters/config_values.ts";
import type { ConverterConfig } from "../converters/converter.ts";
import {
  parseRegistryClientSettings,
  type RegistryClientSettings,
} from "./client/registry_client_settings.ts";
import { type SubjectNameStrategy, subjectNameStrategy } from "./subject_name_strategy.ts";

export interface RegistryConverterSettings {
  readonly client: RegistryClientSettings;
  readonly autoRegisterSchemas: boolean;
  readonly useLatestVersion: boolean;
  readonly normalizeSchemas: boolean;
  readonly subjectNameStrategy: SubjectNameStrategy;
  readonly schemasCacheSize: number;
}

export function parseRegistryConverterSettings(
  configs: ConverterConfig,
  isKey: boolean,
): RegistryConverterSettings {
  return Object.freeze({
    client: parseRegistryClientSettings(configs),
    autoRegisterSchemas: booleanSetting(configs, "auto.register.schemas", true),
    useLatestVersion: booleanSetting(configs, "use.latest.version", false),
    normalizeSchemas: booleanSetting(configs, "normalize.schemas", false),
    subjectNameStrategy: subjectNameStrategy(configs, isKey),
    schemasCacheSize: intSetting(configs, "schemas.cache.size", 1000, 1),
  });
}
