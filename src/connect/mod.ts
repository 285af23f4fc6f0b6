/**
 * The Kafka Connect data model and built-in converters, in one import:
 *
 * - Data model: `Schema`/`SchemaBuilder` (schema.ts, schema_builder.ts), `Struct` (struct.ts), logical types
 *   `ConnectDecimal`/`ConnectDate`/`ConnectTime`/`ConnectTimestamp` with `BigDecimal` values (logical.ts,
 *   big_decimal.ts), headers and records (headers.ts, record.ts), schemaless helpers (values.ts) and Connect's
 *   string forms (value_strings.ts). schema.ts documents how each Connect type is represented in JavaScript.
 * - Converters: JsonConverter, StringConverter, ByteArrayConverter, SimpleHeaderConverter and the factory that
 *   builds them from `key.converter` / `value.converter` / `header.converter` (converters/).
 */
export * from "./errors.ts";
export * from "./schema.ts";
export * from "./schema_builder.ts";
export * from "./struct.ts";
export * from "./big_decimal.ts";
export * from "./logical.ts";
export * from "./values.ts";
export * from "./value_strings.ts";
export * from "./headers.ts";
export * from "./record.ts";
export { formatJavaDouble, formatJavaFloat } from "./java_format.ts";
export * from "./converters/converter.ts";
export * from "./converters/json/json_converter.ts";
export * from "./converters/json/json_converter_config.ts";
export * from "./converters/string_converter.ts";
export * from "./converters/byte_array_converter.ts";
export * from "./converters/simple_header_converter.ts";
export * from "./converters/registry.ts";
export * from "./converters/factory.ts";
