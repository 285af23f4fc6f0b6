/**
 * The Avro registry format: schemas are Avro schema JSON (avro_schema_from_connect.ts), payloads Avro binary
 * written and read by avsc (avro_values.ts maps Connect values to its values and back).
 */
import { Buffer } from "node:buffer";
import { DataException } from "../../errors.ts";
import type { Schema, SchemaAndValue } from "../../schema.ts";
import type { FormatSchema, RegistryFormat } from "../registry_format.ts";
import { avroSchemaText } from "./avro_schema_from_connect.ts";
import { avroKind, type AvroType, parseAvroSchema } from "./avro_schema.ts";
import { avroToConnectSchema } from "./avro_schema_to_connect.ts";
import { fromAvroValue, toAvroValue } from "./avro_values.ts";

export interface AvroSchema extends FormatSchema {
  readonly type: AvroType;
}

/** Runs an avsc call, reporting its errors (bad values, truncated or trailing bytes) as `DataException`. */
function avsc<T>(what: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (error instanceof DataException) throw error;
    throw new DataException(`Avro ${what} failed: ${(error as Error).message}`);
  }
}

export class AvroFormat implements RegistryFormat<AvroSchema> {
  readonly schemaType = "AVRO" as const;
  readonly displayName = "Avro";
  readonly tombstoneForRequiredSchema = false;
  /** Connect schemas of registry schemas, by registry version (null: none). */
  readonly #connectSchemas = new WeakMap<AvroSchema, Map<number | null, Schema>>();

  fromConnectSchema(schema: Schema): AvroSchema {
    return this.parse(avroSchemaText(schema));
  }

  parse(text: string): AvroSchema {
    const type = parseAvroSchema(text);
    const named = ["record", "enum", "fixed"].includes(avroKind(type));
    return { text, type, recordName: named ? type.name! : null };
  }

  serialize(writer: AvroSchema, schema: Schema, value: unknown): Uint8Array {
    const avroValue = toAvroValue(writer.type, schema, value);
    const bytes = avsc("encoding", () => writer.type.toBuffer(avroValue));
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  deserialize(writer: AvroSchema, payload: Uint8Array, version: number | null): SchemaAndValue {
    let byVersion = this.#connectSchemas.get(writer);
    if (byVersion === undefined) this.#connectSchemas.set(writer, byVersion = new Map());
    let schema = byVersion.get(version);
    if (schema === undefined) byVersion.set(version, schema = avroToConnectSchema(writer.type, version));
    const avroValue = avsc(
      "decoding",
      () => writer.type.fromBuffer(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)),
    );
    return { schema, value: fromAvroValue(writer.type, schema, avroValue) };
  }
}
