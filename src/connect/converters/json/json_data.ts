/**
 * Value conversion between Connect data and JSON for Kafka's JsonConverter (`convertToJson` /
 * `convertToConnect`), separate from the envelope and schema handling in json_converter.ts.
 *
 * Writing follows Kafka exactly (see json_text.ts for number and string formatting). Reading follows Kafka for
 * every well-typed payload; where Jackson would silently coerce a mismatched JSON type (a string read as an
 * int32 gives 0, a number read as a string gives null) we throw `DataException` instead, so bad data is reported
 * rather than corrupted. Numeric narrowing follows Java (`1.9` read as int32 is 1; wider values wrap).
 */
import { decodeBase64, encodeBase64 } from "../../base64.ts";
import { DataException } from "../../errors.ts";
import { type Schema, schemaEquals, type SchemaType } from "../../schema.ts";
import { describeValueType, isConnectMap, Struct } from "../../struct.ts";
import { normalizeInt64, schemalessTypeOf } from "../../values.ts";
import type { DecimalFormat } from "./json_converter_config.ts";
import { logicalToConnect, logicalToJson } from "./json_logical.ts";
import { type JsonNode, jsonNodeType, type JsonNumberNode, truncatedInteger } from "./json_node.ts";
import { jsonDouble, jsonFloat, jsonString } from "./json_text.ts";

export interface JsonDataOptions {
  readonly decimalFormat: DecimalFormat;
  readonly replaceNullWithDefault: boolean;
  /**
   * Maps that are not JSON objects: `pairs` (the default, Kafka's JsonConverter) writes `[key, value]` arrays and
   * makes an object of every STRING-keyed map; `objects` (Confluent's JSON Schema converter) writes
   * `{"key":…,"value":…}` and makes objects of required STRING keys only (reading an object for any key).
   */
  readonly mapEntries?: "pairs" | "objects";
}

const INT_BITS: Partial<Record<SchemaType, number>> = { INT8: 8, INT16: 16, INT32: 32 };
const INT_LIMITS: Partial<Record<SchemaType, [number, number]>> = {
  INT8: [-128, 127],
  INT16: [-32768, 32767],
  INT32: [-2147483648, 2147483647],
};
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function invalidType(schema: Schema | null, value: unknown): DataException {
  return new DataException(
    `Invalid type for ${schema?.type ?? "unknown schema"}: ${describeValueType(value)}`,
  );
}

/** The text Jackson's `asText()` gives for a written scalar (used for map keys in object mode). */
function asText(json: string): string {
  return json.startsWith('"') ? JSON.parse(json) : json;
}

export class JsonDataCodec {
  constructor(readonly options: JsonDataOptions) {}

  // -------------------------------------------------------------------------------------------------------------
  // Connect → JSON text

  /** Kafka's `convertToJson`: the JSON text of `value` under `schema` (null schema = infer from the value). */
  toJson(schema: Schema | null, value: unknown): string {
    if (value === null || value === undefined) {
      if (schema === null) return "null";
      if (schema.defaultValue !== null && this.options.replaceNullWithDefault) {
        return this.toJson(schema, schema.defaultValue);
      }
      if (schema.isOptional) return "null";
      throw new DataException(
        "Conversion error: null value for field that is required and has no default value",
      );
    }
    if (schema !== null && schema.name !== null) {
      const logical = logicalToJson(schema, value, this.options.decimalFormat);
      if (logical !== null) return logical;
    }
    const type = schema !== null ? schema.type : schemalessTypeOf(value);
    if (type === null) {
      throw new DataException(
        `JavaScript value of type ${describeValueType(value)} does not have corresponding schema type.`,
      );
    }
    switch (type) {
      case "INT8":
      case "INT16":
      case "INT32": {
        const [min, max] = INT_LIMITS[type]!;
        if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
          throw invalidType(schema, value);
        }
        return String(value);
      }
      case "INT64":
        if (typeof value === "bigint") {
          if (value < INT64_MIN || value > INT64_MAX) throw invalidType(schema, value);
          return value.toString();
        }
        if (typeof value !== "number") throw invalidType(schema, value);
        if (schema === null && !Number.isSafeInteger(value)) return jsonDouble(value); // e.g. 1e300 is integral
        if (!Number.isSafeInteger(value)) throw invalidType(schema, value);
        return String(value);
      case "FLOAT32":
        if (typeof value !== "number") throw invalidType(schema, value);
        return jsonFloat(value);
      case "FLOAT64":
        if (typeof value !== "number") throw invalidType(schema, value);
        return jsonDouble(value);
      case "BOOLEAN":
        if (typeof value !== "boolean") throw invalidType(schema, value);
        return String(value);
      case "STRING":
        if (typeof value !== "string") throw invalidType(schema, value);
        return jsonString(value);
      case "BYTES":
        if (!(value instanceof Uint8Array)) {
          throw new DataException(`Invalid type for bytes type: ${describeValueType(value)}`);
        }
        return `"${encodeBase64(value)}"`;
      case "ARRAY": {
        if (!Array.isArray(value)) throw invalidType(schema, value);
        const elementSchema = schema === null ? null : schema.valueSchema();
        return `[${value.map((item) => this.toJson(elementSchema, item)).join(",")}]`;
      }
      case "MAP":
        return this.#mapToJson(schema, value);
      case "STRUCT":
        return this.#structToJson(schema, value);
    }
  }

  #mapToJson(schema: Schema | null, value: unknown): string {
    if (!isConnectMap(value)) throw invalidType(schema, value);
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
    const keySchema = schema === null ? null : schema.keySchema();
    const valueSchema = schema === null ? null : schema.valueSchema();
    // String keys make a JSON object; any other key type makes an array of entries.
    const entryObjects = this.options.mapEntries === "objects";
    const objectMode = schema !== null
      ? keySchema!.type === "STRING" && !(entryObjects && keySchema!.isOptional)
      : entries.every(([k]) => typeof k === "string");
    if (objectMode) {
      const members = entries.map(([k, v]) =>
        `${jsonString(asText(this.toJson(keySchema, k)))}:${this.toJson(valueSchema, v)}`
      );
      return `{${members.join(",")}}`;
    }
    const entry = (k: string, v: string) => entryObjects ? `{"key":${k},"value":${v}}` : `[${k},${v}]`;
    return `[${
      entries.map(([k, v]) => entry(this.toJson(keySchema, k), this.toJson(valueSchema, v))).join(",")
    }]`;
  }

  #structToJson(schema: Schema | null, value: unknown): string {
    if (!(value instanceof Struct) || !schemaEquals(value.schema, schema)) {
      throw new DataException("Mismatching schema.");
    }
    const members = value.schema.fields().map((field) => {
      const fieldValue = this.options.replaceNullWithDefault
        ? value.get(field)
        : value.getWithoutDefault(field);
      return `${jsonString(field.name)}:${this.toJson(field.schema, fieldValue)}`;
    });
    return `{${members.join(",")}}`;
  }

  // -------------------------------------------------------------------------------------------------------------
  // JSON → Connect

  /** Kafka's `convertToConnect`: the Connect value of a JSON node under `schema` (null = schemaless). */
  toConnect(schema: Schema | null, node: JsonNode | undefined): unknown {
    let type: SchemaType;
    if (schema !== null) {
      if (node === undefined || node.kind === "null" || node.kind === "missing") {
        if (schema.defaultValue !== null && this.options.replaceNullWithDefault) return schema.defaultValue;
        if (schema.isOptional) return null;
        throw new DataException(`Invalid null value for required ${schema.type} field`);
      }
      type = schema.type;
      if (schema.name !== null) {
        const logical = logicalToConnect(schema, node);
        if (logical !== undefined) return logical;
      }
    } else {
      switch (node?.kind) {
        case undefined:
        case "missing":
        case "null":
          return null;
        case "boolean":
          type = "BOOLEAN";
          break;
        case "number":
          type = node.integral ? "INT64" : "FLOAT64";
          break;
        case "string":
          type = "STRING";
          break;
        case "array":
          type = "ARRAY";
          break;
        case "object":
          type = "MAP";
          break;
      }
    }
    return this.#primitiveOrContainerToConnect(type, schema, node!);
  }

  #primitiveOrContainerToConnect(type: SchemaType, schema: Schema | null, node: JsonNode): unknown {
    switch (type) {
      case "BOOLEAN":
        if (node.kind !== "boolean") throw mismatch(type, "a JSON boolean", node);
        return node.value;
      case "INT8":
      case "INT16":
      case "INT32":
        return Number(BigInt.asIntN(INT_BITS[type]!, truncatedInteger(requireNumber(type, node))));
      case "INT64":
        return normalizeInt64(BigInt.asIntN(64, truncatedInteger(requireNumber(type, node))));
      case "FLOAT32":
        return Math.fround(Number(requireNumber(type, node).text));
      case "FLOAT64":
        return Number(requireNumber(type, node).text);
      case "BYTES": {
        const bytes = node.kind === "string" ? decodeBase64(node.value) : null;
        if (bytes === null) throw new DataException("Invalid bytes field");
        return bytes;
      }
      case "STRING":
        if (node.kind !== "string") throw mismatch(type, "a JSON string", node);
        return node.value;
      case "ARRAY": {
        if (node.kind !== "array") throw mismatch(type, "a JSON array", node);
        const elementSchema = schema === null ? null : schema.valueSchema();
        return node.items.map((item) => this.toConnect(elementSchema, item));
      }
      case "MAP":
        return this.#mapToConnect(schema, node);
      case "STRUCT": {
        if (node.kind !== "object") {
          throw new DataException(
            `Structs should be encoded as JSON objects, but found ${jsonNodeType(node)}`,
          );
        }
        const struct = new Struct(schema!);
        for (const field of schema!.fields()) {
          struct.put(field, this.toConnect(field.schema, node.fields.get(field.name)));
        }
        return struct;
      }
    }
  }

  #mapToConnect(schema: Schema | null, node: JsonNode): Map<unknown, unknown> {
    const keySchema = schema === null ? null : schema.keySchema();
    const valueSchema = schema === null ? null : schema.valueSchema();
    const result = new Map<unknown, unknown>();
    const entryObjects = this.options.mapEntries === "objects";
    if (schema === null || (entryObjects ? node.kind === "object" : keySchema!.type === "STRING")) {
      if (node.kind !== "object") {
        throw new DataException(
          `Maps with string fields should be encoded as JSON objects, but found ${jsonNodeType(node)}`,
        );
      }
      for (const [k, v] of node.fields) result.set(k, this.toConnect(valueSchema, v));
      return result;
    }
    if (node.kind !== "array") {
      throw new DataException(
        `Maps with non-string fields should be encoded as JSON array of tuples, but found ${
          jsonNodeType(node)
        }`,
      );
    }
    for (const entry of node.items) {
      if (entryObjects) {
        if (entry.kind !== "object") {
          throw new DataException(
            `Found invalid map entry instead of a key/value object: ${jsonNodeType(entry)}`,
          );
        }
        result.set(
          this.toConnect(keySchema, entry.fields.get("key")),
          this.toConnect(valueSchema, entry.fields.get("value")),
        );
        continue;
      }
      if (entry.kind !== "array") {
        throw new DataException(`Found invalid map entry instead of array tuple: ${jsonNodeType(entry)}`);
      }
      if (entry.items.length !== 2) {
        throw new DataException(
          `Found invalid map entry, expected length 2 but found :${entry.items.length}`,
        );
      }
      result.set(this.toConnect(keySchema, entry.items[0]), this.toConnect(valueSchema, entry.items[1]));
    }
    return result;
  }
}

function mismatch(type: SchemaType, expected: string, node: JsonNode): DataException {
  return new DataException(
    `Invalid value for ${type} field: expected ${expected} but found ${jsonNodeType(node)}`,
  );
}

function requireNumber(type: SchemaType, node: JsonNode): JsonNumberNode {
  if (node.kind !== "number") throw mismatch(type, "a JSON number", node);
  return node;
}
