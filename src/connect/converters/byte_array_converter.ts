/**
 * Kafka's `org.apache.kafka.connect.converters.ByteArrayConverter`: passes bytes through unchanged. Writing accepts
 * only a BYTES (or null) schema and `Uint8Array` values; reading gives an optional BYTES value.
 */
import { DataException } from "../errors.ts";
import { type Schema, Schema as Schemas, type SchemaAndValue } from "../schema.ts";
import { describeValueType } from "../struct.ts";
import type { Converter, ConverterConfig, HeaderConverter } from "./converter.ts";

export const BYTE_ARRAY_CONVERTER_CLASS = "org.apache.kafka.connect.converters.ByteArrayConverter";

export class ByteArrayConverter implements Converter, HeaderConverter {
  configure(_configs: ConverterConfig, _isKey = false): void {
    // No settings.
  }

  fromConnectData(_topic: string, schema: Schema | null, value: unknown): Uint8Array | null {
    if (schema !== null && schema.type !== "BYTES") {
      throw new DataException(`Invalid schema type for ByteArrayConverter: ${schema.type}`);
    }
    if (value === null || value === undefined) return null;
    if (!(value instanceof Uint8Array)) {
      throw new DataException(
        `ByteArrayConverter is not compatible with objects of type ${describeValueType(value)}`,
      );
    }
    return value;
  }

  toConnectData(_topic: string, bytes: Uint8Array | null): SchemaAndValue {
    return { schema: Schemas.OPTIONAL_BYTES_SCHEMA, value: bytes };
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
