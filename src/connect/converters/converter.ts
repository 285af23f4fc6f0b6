/**
 * The converter contracts (Kafka's `org.apache.kafka.connect.storage.Converter` and `HeaderConverter`).
 *
 * A converter turns Connect data (schema + value, see ../schema.ts) into the bytes of a Kafka record key or value
 * and back. A header converter does the same for each header value. Both are configured once with the settings
 * that follow their class property's prefix (`value.converter.schemas.enable=false` reaches the value converter
 * as `schemas.enable=false`), see factory.ts.
 *
 * Converters throw `DataException` (../errors.ts) for data that cannot be converted; the runtime tolerates it per
 * `errors.tolerance`. Invalid settings throw `ConfigException` from `configure`.
 */
import type { Schema, SchemaAndValue } from "../schema.ts";

/**
 * A raw Kafka record header as the client sees it. Converters receive the record's headers so that formats which
 * carry metadata in headers (e.g. schema ids) can read or append them.
 */
export interface RawHeader {
  key: string;
  value: Uint8Array | null;
}

/** Converter settings: string values, as in a Connect config map (the prefix already removed). */
export type ConverterConfig = Readonly<Record<string, string>>;

/** Kafka's `ConverterType`, passed to converters as `converter.type` (`key`, `value` or `header`). */
export type ConverterType = "key" | "value" | "header";

/** The `converter.type` setting the framework adds to every converter's settings. */
export const CONVERTER_TYPE_CONFIG = "converter.type";

export interface Converter {
  /** Applies settings; `isKey` tells a key converter from a value converter. Call once, before converting. */
  configure(configs: ConverterConfig, isKey: boolean): void;

  /**
   * Connect data → record bytes. Returns null for a tombstone (what "null" means is converter-specific:
   * JsonConverter returns null only when both schema and value are null).
   */
  fromConnectData(
    topic: string,
    schema: Schema | null,
    value: unknown,
    headers?: RawHeader[],
  ): Uint8Array | null;

  /** Record bytes (null for a tombstone) → Connect data. */
  toConnectData(topic: string, bytes: Uint8Array | null, headers?: readonly RawHeader[]): SchemaAndValue;

  /** Releases resources; optional. */
  close?(): void;
}

export interface HeaderConverter {
  /** Applies settings (the framework adds `converter.type=header`). */
  configure(configs: ConverterConfig): void;

  /** A header's Connect value → header bytes (null for a null header value). */
  fromConnectHeader(
    topic: string,
    headerKey: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null;

  /** Header bytes → Connect value. */
  toConnectHeader(topic: string, headerKey: string, bytes: Uint8Array | null): SchemaAndValue;

  close?(): void;
}
