/**
 * The Avro registry format: schemas are Avro schema JSON (avro_schema_from_connect.ts), payloads Avro binary.
 */
import type { Schema, SchemaAndValue } from "../../schema.ts";
import type { FormatSchema, RegistryFormat } from "../registry_format.ts";
import { AvroBinaryReader } from "./avro_binary_reader.ts";
import { AvroBinaryWriter } from "./avro_binary_writer.ts";
import { avroSchemaText } from "./avro_schema_from_connect.ts";
import { parseAvroSchema } from "./avro_schema_parser.ts";
import { avroToConnectSchema } from "./avro_schema_to_connect.ts";
import { type AvroType, avroTypeName } from "./avro_types.ts";

export interface AvroSchema extends FormatSchema {
  readonly type: AvroType;
}

function recordName(type: AvroType): string | null {
  return type.kind === "record" || type.kind === "enum" || type.kind === "fixed" ? avroTypeName(type) : null;
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
    return { text, type, recordName: recordName(type) };
  }

  serialize(writer: AvroSchema, schema: Schema, value: unknown): Uint8Array {
    return new AvroBinaryWriter().write(writer.type, schema, value).toBytes();
  }

  deserialize(writer: AvroSchema, payload: Uint8Array, version: number | null): SchemaAndValue {
    let byVersion = this.#connectSchemas.get(writer);
    if (byVersion === undefined) this.#connectSchemas.set(writer, byVersion = new Map());
    let schema = byVersion.get(version);
    if (schema === undefined) byVersion.set(version, schema = avroToConnectSchema(writer.type, version));
    return { schema, value: new AvroBinaryReader(payload).readAll(writer.type, schema) };
  }
}
