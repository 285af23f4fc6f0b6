/**
 * `io.confluent.connect.avro.AvroConverter`: Connect data as Avro in Confluent's wire format, schemas in the
 * schema registry. Settings: registry_converter_settings.ts and client/registry_client_settings.ts.
 */
import type { ConverterConfig } from "../../converters/converter.ts";
import { RegistryConverter } from "../registry_converter.ts";
import { AvroFormat, type AvroSchema } from "./avro_format.ts";

export const AVRO_CONVERTER_CLASS = "io.confluent.connect.avro.AvroConverter";

export class AvroConverter extends RegistryConverter<AvroSchema> {
  readonly className = AVRO_CONVERTER_CLASS;

  protected createFormat(_configs: ConverterConfig): AvroFormat {
    return new AvroFormat();
  }
}
