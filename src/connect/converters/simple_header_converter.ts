/**
 * Kafka's `org.apache.kafka.connect.storage.SimpleHeaderConverter`, Connect's default `header.converter`.
 *
 * Header values are written as UTF-8 text in Connect's string form (`Values.convertToString`, see
 * ../value_strings.ts) without any schema, and read back by inferring the narrowest schema from the text
 * (`Values.parseString`): `42` → INT8, `true` → BOOLEAN, `[1,2]` → ARRAY of INT8, `2024-10-01` → Date, anything
 * else → STRING. A value that cannot be parsed for another reason is returned as BYTES, as in Kafka.
 */
import { NULL_SCHEMA_AND_VALUE, type Schema, Schema as Schemas, type SchemaAndValue } from "../schema.ts";
import { convertToString } from "../value_strings.ts";
import { parseString } from "../value_string_parser.ts";
import type { ConverterConfig, HeaderConverter } from "./converter.ts";

export const SIMPLE_HEADER_CONVERTER_CLASS = "org.apache.kafka.connect.storage.SimpleHeaderConverter";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");

export class SimpleHeaderConverter implements HeaderConverter {
  configure(_configs: ConverterConfig): void {
    // No settings.
  }

  fromConnectHeader(
    _topic: string,
    _headerKey: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    if (value === null || value === undefined) return null;
    return encoder.encode(convertToString(schema, value)!);
  }

  toConnectHeader(_topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    try {
      return parseString(decoder.decode(bytes));
    } catch {
      // Kafka falls back to the raw bytes when the text cannot be parsed.
      return { schema: Schemas.BYTES_SCHEMA, value: bytes };
    }
  }
}
