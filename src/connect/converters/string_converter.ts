/**
 * Kafka's `org.apache.kafka.connect.storage.StringConverter`: values as text in `converter.encoding` (default
 * `UTF8`). Reading always gives an optional STRING (null bytes → null).
 *
 * Writing uses the value's Java `toString()`: strings unchanged; numbers, booleans and decimals exactly as Java
 * prints them (a FLOAT64 1.0 is `1.0`, using the schema to tell floats from integers); Dates as Java's
 * `Date.toString()` in UTC; lists, maps and structs in Java's collection form (`[a, b]`, `{k=v}`,
 * `Struct{f=v}`). Bytes are written as base64 (Java would print an object reference).
 */
import { BigDecimal } from "../big_decimal.ts";
import { ConfigException } from "../errors.ts";
import { type Schema, Schema as Schemas, type SchemaAndValue } from "../schema.ts";
import { displayValue } from "../struct.ts";
import { convertToString } from "../value_strings.ts";
import { type Charset, charsetForName } from "./charsets.ts";
import type { Converter, ConverterConfig, HeaderConverter } from "./converter.ts";

export const STRING_CONVERTER_CLASS = "org.apache.kafka.connect.storage.StringConverter";
const ENCODING_CONFIG = "converter.encoding";
const ENCODING_DEFAULT = "UTF8";

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Java's `Date.toString()` in UTC: `Thu Jan 01 00:00:00 UTC 1970`. */
function javaDateToString(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${pad(date.getUTCDate())} ${
    pad(date.getUTCHours())
  }:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} UTC ${date.getUTCFullYear()}`;
}

/** The text StringConverter writes for a value (see module comment). */
function javaToString(schema: Schema | null, value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Date) return javaDateToString(value);
  if (
    typeof value === "number" || typeof value === "bigint" || typeof value === "boolean" ||
    value instanceof BigDecimal || value instanceof Uint8Array
  ) {
    return convertToString(schema, value)!;
  }
  return displayValue(value);
}

export class StringConverter implements Converter, HeaderConverter {
  #charset: Charset = charsetForName(ENCODING_DEFAULT)!;

  get encoding(): string {
    return this.#charset.name;
  }

  configure(configs: ConverterConfig, _isKey = false): void {
    const name = configs[ENCODING_CONFIG] ?? ENCODING_DEFAULT;
    const charset = charsetForName(name);
    if (charset === null) {
      throw ConfigException.invalidValue(
        ENCODING_CONFIG,
        name,
        "Unsupported character encoding (supported: UTF-8, ISO-8859-1, US-ASCII, UTF-16, UTF-16BE, UTF-16LE)",
      );
    }
    this.#charset = charset;
  }

  fromConnectData(_topic: string, schema: Schema | null, value: unknown): Uint8Array | null {
    if (value === null || value === undefined) return null;
    return this.#charset.encode(javaToString(schema, value));
  }

  toConnectData(_topic: string, bytes: Uint8Array | null): SchemaAndValue {
    return {
      schema: Schemas.OPTIONAL_STRING_SCHEMA,
      value: bytes === null ? null : this.#charset.decode(bytes),
    };
  }

  fromConnectHeader(
    topic: string,
    _headerKey: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return this.fromConnectData(topic, schema, value);
  }

  toConnectHeader(topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    return this.toConnectData(topic, bytes);
  }
}
