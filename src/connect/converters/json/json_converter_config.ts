/**
 * JsonConverter settings (Kafka's `JsonConverterConfig`), with Kafka's names and defaults:
 *
 * | Setting                     | Default  | Meaning                                                              |
 * |-----------------------------|----------|----------------------------------------------------------------------|
 * | `schemas.enable`            | `true`   | wrap each message as `{"schema":…,"payload":…}`                       |
 * | `schemas.cache.size`        | `1000`   | schemas remembered in each direction                                 |
 * | `decimal.format`            | `BASE64` | Decimal payloads as base64 bytes or as JSON numbers (`NUMERIC`)      |
 * | `replace.null.with.default` | `true`   | a null field with a schema default is written/read as the default   |
 */
import { booleanSetting, caseInsensitiveChoice, intSetting } from "../config_values.ts";
import type { ConverterConfig } from "../converter.ts";

const SCHEMAS_ENABLE_CONFIG = "schemas.enable";
const SCHEMAS_CACHE_SIZE_CONFIG = "schemas.cache.size";
const DECIMAL_FORMAT_CONFIG = "decimal.format";
const REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default";

export type DecimalFormat = "BASE64" | "NUMERIC";

export interface JsonConverterSettings {
  readonly schemasEnabled: boolean;
  readonly schemasCacheSize: number;
  readonly decimalFormat: DecimalFormat;
  readonly replaceNullWithDefault: boolean;
}

export const DEFAULT_JSON_CONVERTER_SETTINGS: JsonConverterSettings = Object.freeze({
  schemasEnabled: true,
  schemasCacheSize: 1000,
  decimalFormat: "BASE64",
  replaceNullWithDefault: true,
});

/** Reads the settings; throws `ConfigException` with Kafka's message for an invalid value. */
export function parseJsonConverterSettings(configs: ConverterConfig): JsonConverterSettings {
  const d = DEFAULT_JSON_CONVERTER_SETTINGS;
  return Object.freeze({
    schemasEnabled: booleanSetting(configs, SCHEMAS_ENABLE_CONFIG, d.schemasEnabled),
    schemasCacheSize: intSetting(configs, SCHEMAS_CACHE_SIZE_CONFIG, d.schemasCacheSize, 0),
    decimalFormat: caseInsensitiveChoice(
      configs,
      DECIMAL_FORMAT_CONFIG,
      ["BASE64", "NUMERIC"],
      d.decimalFormat,
    ),
    replaceNullWithDefault: booleanSetting(
      configs,
      REPLACE_NULL_WITH_DEFAULT_CONFIG,
      d.replaceNullWithDefault,
    ),
  });
}
