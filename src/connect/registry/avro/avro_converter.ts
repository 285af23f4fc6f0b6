/**
 * `io.confluent.connect.avro.AvroConverter`: Connect data as Avro in Confluent's wire format, schemas in the
 * schema registry (settings: registry_converter_settings.ts and client/registry_client_settings.ts). The Avro
 * format: schemas are Avro schema JSON (avro_schema_from_connect.ts), payloads Avro binary written and read by
 * avsc (avro_values.ts maps Connect values to its values and back).
 */
import { Buffer } from "node:buffer";
import type { Schema } from "../../schema.ts";
import { dataCall, type FormatSchema, type PayloadReader, type RegistryFormat } from "../registry_format.ts";
import { avroSchemaText } from "./avro_schema_from_connect.ts";
import { type AvroType, parseAvroSchema } from "./avro_schema.ts";
import { avroToConnectSchema } from "./avro_schema_to_connect.ts";
import { fromAvroValue, toAvroValue } from "./avro_values.ts";
import { RegistryConverter } from "../registry_converter.ts";
import { AVRO_CONVERTER_CLASS } from "../registry_converter_classes.ts";

export interface AvroSchema extends FormatSchema {
  readonly type: AvroType;
}

class AvroFormat implements RegistryFormat<AvroSchema> {
  readonly schemaType = "AVRO" as const;
  readonly displayName = "Avro";
  readonly tombstoneForRequiredSchema = false;

  readonly schemaText = avroSchemaText;

  parse(text: string): AvroSchema {
    const type = parseAvroSchema(text);
    return { text, type, recordName: type.name ?? null }; // avsc names records, enums and fixed types only
  }

  serialize(writer: AvroSchema, schema: Schema, value: unknown): Uint8Array {
    const avroValue = toAvroValue(writer.type, schema, value);
    const bytes = dataCall("Avro encoding failed", () => writer.type.toBuffer(avroValue));
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  reader(writer: AvroSchema, version: number | null): PayloadReader {
    const schema = avroToConnectSchema(writer.type, version);
    return (payload) => {
      const buffer = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
      const avroValue = dataCall("Avro decoding failed", () => writer.type.fromBuffer(buffer));
      return { schema, value: fromAvroValue(writer.type, schema, avroValue) };
    };
  }
}

export class AvroConverter extends RegistryConverter<AvroSchema> {
  constructor() {
    super(AVRO_CONVERTER_CLASS, () => new AvroFormat());
  }
}
