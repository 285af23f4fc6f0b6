/**
 * Kafka's `org.apache.kafka.connect.json.JsonConverter`, byte-compatible with Kafka's output.
 *
 * With `schemas.enable=true` (the default) every message is `{"schema":<schema>,"payload":<value>}` (see
 * json_schema.ts for the schema form); with `schemas.enable=false` it is the bare payload, and reading infers
 * schemaless values: JSON objects become `Map<string, unknown>`, arrays become arrays, integers INT64 (`number`,
 * or `bigint` beyond 2^53), other numbers FLOAT64. Settings: json_converter_config.ts.
 *
 * Null handling is Kafka's: a null schema with a null value converts to null bytes (a tombstone); null bytes
 * convert to a null schema and value.
 */
import { verbatimJson } from "../../../common/verbatim_json.ts";
import { schemalessJsonFastPath } from "./schemaless_fast_path.ts";
import { DataException } from "../../errors.ts";
import { NULL_SCHEMA_AND_VALUE, type Schema, type SchemaAndValue } from "../../schema.ts";
import type { Converter, ConverterConfig, HeaderConverter } from "../converter.ts";
import {
  DEFAULT_JSON_CONVERTER_SETTINGS,
  type JsonConverterSettings,
  parseJsonConverterSettings,
} from "./json_converter_config.ts";
import { JsonDataCodec } from "./json_data.ts";
import type { JsonNode } from "./json_node.ts";
import { parseJson } from "./json_parser.ts";
import { JsonSchemaCodec } from "./json_schema.ts";

export const JSON_CONVERTER_CLASS = "org.apache.kafka.connect.json.JsonConverter";

const ENVELOPE_REQUIRED_MESSAGE =
  'JsonConverter with schemas.enable requires "schema" and "payload" fields and ' +
  "may not contain additional fields. If you are trying to deserialize plain JSON data, set " +
  "schemas.enable=false in your converter configuration.";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export class JsonConverter implements Converter, HeaderConverter {
  #settings: JsonConverterSettings = DEFAULT_JSON_CONVERTER_SETTINGS;
  #data = new JsonDataCodec(DEFAULT_JSON_CONVERTER_SETTINGS);
  #schemas = new JsonSchemaCodec(this.#data, DEFAULT_JSON_CONVERTER_SETTINGS.schemasCacheSize);

  /** The effective settings (defaults until `configure` is called). */
  get settings(): JsonConverterSettings {
    return this.#settings;
  }

  configure(configs: ConverterConfig, _isKey = false): void {
    this.#settings = parseJsonConverterSettings(configs);
    this.#data = new JsonDataCodec(this.#settings);
    this.#schemas = new JsonSchemaCodec(this.#data, this.#settings.schemasCacheSize);
  }

  fromConnectData(_topic: string, schema: Schema | null, value: unknown): Uint8Array | null {
    if (schema === null && (value === null || value === undefined)) return null;
    // A schemaless row whose bytes as read are the very bytes the writer would give (verbatim_json.ts).
    const verbatim = schema === null && !this.#settings.schemasEnabled ? verbatimJson(value) : undefined;
    return verbatim ?? encoder.encode(this.toJsonText(schema, value));
  }

  /** The JSON text `fromConnectData` encodes (envelope included when schemas are enabled). */
  toJsonText(schema: Schema | null, value: unknown): string {
    const payload = (schema === null ? schemalessJsonFastPath(value) : undefined) ??
      this.#data.toJson(schema, value);
    if (!this.#settings.schemasEnabled) return payload;
    return `{"schema":${this.#schemas.asJsonSchema(schema)},"payload":${payload}}`;
  }

  toConnectData(_topic: string, bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    let json: JsonNode;
    try {
      json = parseJson(decoder.decode(bytes));
    } catch (e) {
      throw new DataException(
        `Converting byte[] to Kafka Connect data failed due to serialization error: ${(e as Error).message}`,
        { cause: e },
      );
    }
    if (!this.#settings.schemasEnabled) return { schema: null, value: this.#data.toConnect(null, json) };
    if (
      json.kind !== "object" || json.fields.size !== 2 || !json.fields.has("schema") ||
      !json.fields.has("payload")
    ) {
      throw new DataException(ENVELOPE_REQUIRED_MESSAGE);
    }
    const schema = this.#schemas.asConnectSchema(json.fields.get("schema")!);
    const value = this.#data.toConnect(schema, json.fields.get("payload"));
    return value === null && schema === null ? NULL_SCHEMA_AND_VALUE : { schema, value };
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
