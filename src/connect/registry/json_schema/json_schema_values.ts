/**
 * Connect values ↔ JSON payloads, as Confluent's `JsonSchemaData.fromConnectData` / `toConnectData`:
 * integers and floats as JSON numbers, bytes as base64 strings, Decimal as base64 of the unscaled
 * two's-complement bytes (`decimal.format=BASE64`, the default) or as a number (`NUMERIC`), Timestamp as epoch
 * millis, Date as days, Time as millis of the day, structs as objects with every field (null when null), maps
 * as objects (string keys) or arrays of `{"key":…,"value":…}`. A null with a schema default writes the default.
 *
 * Numbers are read from the exact JSON text (json_parser.ts), so int64 values beyond 2^53 and decimals survive.
 */
import { BigDecimal } from "../../big_decimal.ts";
import { decodeBase64, encodeBase64 } from "../../base64.ts";
import { jsonDouble, jsonFloat, jsonString } from "../../converters/json/json_text.ts";
import type { JsonNode } from "../../converters/json/json_node.ts";
import { jsonNodeType } from "../../converters/json/json_node.ts";
import { DataException } from "../../errors.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import {
  DATE_LOGICAL_NAME,
  DECIMAL_LOGICAL_NAME,
  TIME_LOGICAL_NAME,
  TIMESTAMP_LOGICAL_NAME,
} from "../../logical_names.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { mapEntries, normalizeInt64 } from "../../values.ts";

export type DecimalFormat = "BASE64" | "NUMERIC";

/** A Connect value as JSON text. */
export function writeJsonValue(schema: Schema, value: unknown, decimalFormat: DecimalFormat): string {
  if (value === null || value === undefined) {
    if (schema.defaultValue !== null) return writeJsonValue(schema, schema.defaultValue, decimalFormat);
    if (schema.isOptional) return "null";
    throw new DataException(
      "Conversion error: null value for field that is required and has no default value",
    );
  }
  switch (schema.name) {
    case DECIMAL_LOGICAL_NAME:
      return decimalFormat === "NUMERIC"
        ? (value as BigDecimal).toString()
        : jsonString(encodeBase64(ConnectDecimal.fromLogical(schema, value as BigDecimal)));
    case DATE_LOGICAL_NAME:
      return String(ConnectDate.fromLogical(schema, value as Date));
    case TIME_LOGICAL_NAME:
      return String(ConnectTime.fromLogical(schema, value as Date));
    case TIMESTAMP_LOGICAL_NAME:
      return String(ConnectTimestamp.fromLogical(schema, value as Date));
  }
  switch (schema.type) {
    case "INT8":
    case "INT16":
    case "INT32":
    case "INT64":
      return String(value);
    case "FLOAT32":
      return jsonFloat(value as number);
    case "FLOAT64":
      return jsonDouble(value as number);
    case "BOOLEAN":
      return value ? "true" : "false";
    case "STRING":
      return jsonString(value as string);
    case "BYTES":
      return jsonString(encodeBase64(value as Uint8Array));
    case "ARRAY":
      return `[${
        (value as unknown[]).map((v) => writeJsonValue(schema.valueSchema(), v, decimalFormat)).join(",")
      }]`;
    case "MAP": {
      const entries = mapEntries(value as Map<unknown, unknown>);
      if (schema.keySchema().type === "STRING" && !schema.keySchema().isOptional) {
        return `{${
          entries.map(([k, v]) =>
            `${jsonString(String(k))}:${writeJsonValue(schema.valueSchema(), v, decimalFormat)}`
          )
            .join(",")
        }}`;
      }
      return `[${
        entries.map(([k, v]) =>
          `{"key":${writeJsonValue(schema.keySchema(), k, decimalFormat)},"value":${
            writeJsonValue(schema.valueSchema(), v, decimalFormat)
          }}`
        ).join(",")
      }]`;
    }
    case "STRUCT": {
      const struct = value as Struct;
      if (!struct.schema.equals(schema)) throw new DataException("Mismatching schema.");
      return `{${
        schema.fields().map((f) =>
          `${jsonString(f.name)}:${writeJsonValue(f.schema, struct.get(f), decimalFormat)}`
        )
          .join(",")
      }}`;
    }
  }
}

/** A Connect default as JSON text (for the schema's `default`). */
export function jsonDefault(schema: Schema, value: unknown): string {
  return writeJsonValue(schema, value, "NUMERIC");
}

function fail(schema: Schema, node: JsonNode): never {
  throw new DataException(`Invalid JSON for ${schema.type} field: found ${jsonNodeType(node)}`);
}

function integer(schema: Schema, node: JsonNode): bigint {
  if (node.kind !== "number" || !node.integral) fail(schema, node);
  return BigInt(node.text);
}

/** A JSON node → the Connect value of `schema`. */
export function readJsonValue(schema: Schema, node: JsonNode | undefined): unknown {
  if (node === undefined || node.kind === "missing" || node.kind === "null") {
    if (schema.defaultValue !== null) return schema.defaultValue;
    if (schema.isOptional) return null;
    throw new DataException(`Invalid null value for required ${schema.type} field`);
  }
  switch (schema.name) {
    case DECIMAL_LOGICAL_NAME:
      if (node.kind === "number") return BigDecimal.parse(node.text);
      if (node.kind === "string") {
        const bytes = decodeBase64(node.value);
        if (bytes === null) throw new DataException("Invalid bytes for Decimal field");
        return ConnectDecimal.toLogical(schema, bytes);
      }
      fail(schema, node);
      break;
    case DATE_LOGICAL_NAME:
      return ConnectDate.toLogical(schema, Number(integer(schema, node)));
    case TIME_LOGICAL_NAME:
      return ConnectTime.toLogical(schema, Number(integer(schema, node)));
    case TIMESTAMP_LOGICAL_NAME:
      return ConnectTimestamp.toLogical(schema, normalizeInt64(integer(schema, node)));
  }
  switch (schema.type) {
    case "INT8":
    case "INT16":
    case "INT32":
      return Number(integer(schema, node));
    case "INT64":
      return normalizeInt64(integer(schema, node));
    case "FLOAT32":
      if (node.kind !== "number") fail(schema, node);
      return Math.fround(Number(node.text));
    case "FLOAT64":
      if (node.kind !== "number") fail(schema, node);
      return Number(node.text);
    case "BOOLEAN":
      if (node.kind !== "boolean") fail(schema, node);
      return node.value;
    case "STRING":
      if (node.kind !== "string") fail(schema, node);
      return node.value;
    case "BYTES": {
      if (node.kind !== "string") fail(schema, node);
      const bytes = decodeBase64(node.value);
      if (bytes === null) throw new DataException("Invalid bytes field");
      return bytes;
    }
    case "ARRAY":
      if (node.kind !== "array") fail(schema, node);
      return node.items.map((item) => readJsonValue(schema.valueSchema(), item));
    case "MAP": {
      const map = new Map<unknown, unknown>();
      if (node.kind === "object") {
        for (const [k, v] of node.fields) map.set(k, readJsonValue(schema.valueSchema(), v));
      } else if (node.kind === "array") {
        for (const entry of node.items) {
          if (entry.kind !== "object") fail(schema, entry);
          map.set(
            readJsonValue(schema.keySchema(), entry.fields.get("key")),
            readJsonValue(schema.valueSchema(), entry.fields.get("value")),
          );
        }
      } else fail(schema, node);
      return map;
    }
    case "STRUCT": {
      if (node.kind !== "object") {
        throw new DataException(`Structs should be encoded as JSON objects, but found ${jsonNodeType(node)}`);
      }
      const struct = new Struct(schema);
      for (const f of schema.fields()) struct.put(f, readJsonValue(f.schema, node.fields.get(f.name)));
      return struct;
    }
  }
}
