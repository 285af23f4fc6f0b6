/**
 * Connect values ↔ JSON payloads, as Confluent's `JsonSchemaData.fromConnectData` / `toConnectData`: Kafka's
 * JsonConverter mapping (converters/json/json_data.ts: numbers from the exact JSON text, bytes as base64, Decimal
 * as base64 of the unscaled two's complement (`decimal.format=BASE64`, the default) or a number (`NUMERIC`),
 * Timestamp as epoch millis, Date as days, Time as millis of the day, structs with every field), with two
 * differences of Confluent's: a null with a schema default is always the default, and maps that are not JSON
 * objects are arrays of `{"key":…,"value":…}`.
 */
import { JsonDataCodec } from "../../converters/json/json_data.ts";
import type { DecimalFormat } from "../../converters/json/json_converter_config.ts";

export type { DecimalFormat };

export function jsonSchemaValues(decimalFormat: DecimalFormat): JsonDataCodec {
  return new JsonDataCodec({ decimalFormat, replaceNullWithDefault: true, mapEntries: "objects" });
}

/** Schema defaults (`default`) are written with decimals as numbers. */
export const JSON_SCHEMA_DEFAULTS = jsonSchemaValues("NUMERIC");
