/**
 * What differs between the Avro, JSON Schema and Protobuf converters: how a Connect schema becomes a registry
 * schema, how registry text is parsed, and how values are written and read. Everything else (registry calls,
 * caching, subject names, the wire format header) lives in registry_converter.ts.
 */
import { DataException } from "../errors.ts";
import type { Schema, SchemaAndValue } from "../schema.ts";
import type { SchemaType } from "./client/schema_registry_client.ts";

/** A schema in one registry format, generated from a Connect schema or parsed from registry text. */
export interface FormatSchema {
  /** The text registered with (or fetched from) the registry. */
  readonly text: string;
  /** The fully qualified record name, for the record-based subject strategies; null when unnamed. */
  readonly recordName: string | null;
}

export interface RegistryFormat<S extends FormatSchema> {
  readonly schemaType: SchemaType;
  /** The format's name in messages (`Avro`, `JSON Schema`, `Protobuf`). */
  readonly displayName: string;
  /** True when a null value with a required schema still makes a tombstone (Protobuf) rather than an error. */
  readonly tombstoneForRequiredSchema: boolean;

  /** Connect schema → registry text. Throws `DataException` for a schema the format cannot express. */
  schemaText(schema: Schema): string;
  /** Registry text → schema. Throws `DataException` for text the format cannot read. */
  parse(text: string): S;
  /**
   * A non-null Connect value → the payload after the 5-byte header, written with `writer` (generated from
   * `schema`, or the subject's latest schema with `use.latest.version`, whose fields are then matched by name).
   */
  serialize(writer: S, schema: Schema, value: unknown): Uint8Array;
  /**
   * The reader of payloads written with `writer` (payload → Connect data), made once per schema id; `version` is
   * the registry version, used when the schema carries no version.
   */
  reader(writer: S, version: number | null): PayloadReader;
}

export type PayloadReader = (payload: Uint8Array) => SchemaAndValue;

/**
 * Runs a call into a library (avsc, protobufjs, JSON.parse), reporting its errors (bad schemas or values,
 * truncated or trailing bytes) as `DataException`s: "`context`: ...".
 */
export function dataCall<T>(context: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (error instanceof DataException) throw error;
    throw new DataException(`${context}: ${(error as Error).message}`);
  }
}
