/**
 * `io.confluent.connect.json.JsonSchemaConverter`: Connect data as JSON in Confluent's wire format, JSON Schemas
 * in the schema registry. Besides the registry settings it reads `decimal.format` (`BASE64`, the default, or
 * `NUMERIC`).
 */
import { caseInsensitiveChoice } from "../../converters/config_values.ts";
import type { ConverterConfig } from "../../converters/converter.ts";
import { RegistryConverter } from "../registry_converter.ts";
import { type JsonSchemaDocument, JsonSchemaFormat } from "./json_schema_format.ts";

export const JSON_SCHEMA_CONVERTER_CLASS = "io.confluent.connect.json.JsonSchemaConverter";

export class JsonSchemaConverter extends RegistryConverter<JsonSchemaDocument> {
  readonly className = JSON_SCHEMA_CONVERTER_CLASS;

  protected createFormat(configs: ConverterConfig): JsonSchemaFormat {
    return new JsonSchemaFormat(
      caseInsensitiveChoice(configs, "decimal.format", ["BASE64", "NUMERIC"], "BASE64"),
    );
  }
}
