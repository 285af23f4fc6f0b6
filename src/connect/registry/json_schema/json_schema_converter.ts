/**
 * `io.confluent.connect.json.JsonSchemaConverter`: Connect data as JSON in Confluent's wire format, JSON Schemas
 * in the schema registry. Besides the registry settings it reads `decimal.format` (`BASE64`, the default, or
 * `NUMERIC`). Schemas are JSON Schema documents (json_schema_from_connect.ts), payloads UTF-8 JSON
 * (json_schema_values.ts). Payloads are not validated against the schema, as Confluent's converter does not by
 * default (`json.fail.invalid.schema=false`).
 */
import { DataException } from "../../errors.ts";
import { parseJson } from "../../converters/json/json_parser.ts";
import type { JsonDataCodec } from "../../converters/json/json_data.ts";
import type { Schema } from "../../schema.ts";
import { dataCall, type FormatSchema, type PayloadReader, type RegistryFormat } from "../registry_format.ts";
import { jsonSchemaText } from "./json_schema_from_connect.ts";
import { jsonSchemaToConnect } from "./json_schema_to_connect.ts";
import { type DecimalFormat, jsonSchemaValues } from "./json_schema_values.ts";
import { caseInsensitiveChoice } from "../../converters/config_values.ts";
import { RegistryConverter } from "../registry_converter.ts";
import { JSON_SCHEMA_CONVERTER_CLASS } from "../registry_converter_classes.ts";

export interface JsonSchemaDocument extends FormatSchema {
  readonly document: unknown;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

class JsonSchemaFormat implements RegistryFormat<JsonSchemaDocument> {
  readonly schemaType = "JSON" as const;
  readonly displayName = "JSON Schema";
  readonly tombstoneForRequiredSchema = false;

  readonly #values: JsonDataCodec;

  constructor(decimalFormat: DecimalFormat) {
    this.#values = jsonSchemaValues(decimalFormat);
  }

  readonly schemaText = jsonSchemaText;

  parse(text: string): JsonSchemaDocument {
    const document = dataCall("Invalid JSON Schema", () => JSON.parse(text));
    const title = (document as { title?: unknown } | null)?.title;
    return { text, document, recordName: typeof title === "string" ? title : null };
  }

  serialize(_writer: JsonSchemaDocument, schema: Schema, value: unknown): Uint8Array {
    return encoder.encode(this.#values.toJson(schema, value));
  }

  reader(writer: JsonSchemaDocument, version: number | null): PayloadReader {
    const schema = jsonSchemaToConnect(writer.document, version);
    return (payload) => {
      let text: string;
      try {
        text = decoder.decode(payload);
      } catch {
        throw new DataException("the payload is not UTF-8");
      }
      return { schema, value: this.#values.toConnect(schema, parseJson(text)) };
    };
  }
}

export class JsonSchemaConverter extends RegistryConverter<JsonSchemaDocument> {
  constructor() {
    super(JSON_SCHEMA_CONVERTER_CLASS, (configs) =>
      new JsonSchemaFormat(
        caseInsensitiveChoice(configs, "decimal.format", ["BASE64", "NUMERIC"], "BASE64"),
      ));
  }
}
