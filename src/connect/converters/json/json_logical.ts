/**
 * Connect's built-in logical types (Decimal, Date, Time, Timestamp) to and from JSON, as Kafka's JsonConverter
 * writes and reads them (the codec in json_data.ts calls these for a schema with a logical name).
 */
import { decodeBase64, encodeBase64 } from "../../base64.ts";
import { BigDecimal } from "../../big_decimal.ts";
import { DataException } from "../../errors.ts";
import {
  ConnectDate,
  ConnectDecimal,
  ConnectTime,
  ConnectTimestamp,
  DATE_LOGICAL_NAME,
  DECIMAL_LOGICAL_NAME,
  TIME_LOGICAL_NAME,
  TIMESTAMP_LOGICAL_NAME,
} from "../../logical.ts";
import type { Schema } from "../../schema.ts";
import { describeValueType } from "../../struct.ts";
import type { DecimalFormat } from "./json_converter_config.ts";
import { isIntNode, type JsonNode, jsonNodeType, type JsonNumberNode } from "./json_node.ts";

/** The JSON text of a logical value, or null when the schema name is not a built-in logical type. */
export function logicalToJson(schema: Schema, value: unknown, decimalFormat: DecimalFormat): string | null {
  switch (schema.name) {
    case DECIMAL_LOGICAL_NAME:
      if (!(value instanceof BigDecimal)) {
        throw new DataException(
          `Invalid type for Decimal, expected BigDecimal but was ${describeValueType(value)}`,
        );
      }
      return decimalFormat === "NUMERIC"
        ? value.toString()
        : `"${encodeBase64(ConnectDecimal.fromLogical(schema, value))}"`;
    case DATE_LOGICAL_NAME:
      return String(ConnectDate.fromLogical(schema, requireDate(value, "Date")));
    case TIME_LOGICAL_NAME:
      return String(ConnectTime.fromLogical(schema, requireDate(value, "Time")));
    case TIMESTAMP_LOGICAL_NAME:
      return String(ConnectTimestamp.fromLogical(schema, requireDate(value, "Timestamp")));
  }
  return null;
}

/** The logical value, or undefined when the schema name is not a built-in logical type. */
export function logicalToConnect(schema: Schema, node: JsonNode): unknown {
  switch (schema.name) {
    case DECIMAL_LOGICAL_NAME:
      if (node.kind === "number") return BigDecimal.parse(node.text);
      if (node.kind === "string") {
        const bytes = decodeBase64(node.value);
        try {
          if (bytes === null) throw new DataException("Invalid base64");
          return ConnectDecimal.toLogical(schema, bytes);
        } catch (e) {
          throw new DataException("Invalid bytes for Decimal field", { cause: e });
        }
      }
      throw new DataException(
        `Invalid type for Decimal, underlying representation should be numeric or bytes but was ${
          jsonNodeType(node)
        }`,
      );
    case DATE_LOGICAL_NAME:
      if (!isIntNode(node)) {
        throw new DataException(
          `Invalid type for Date, underlying representation should be integer but was ${jsonNodeType(node)}`,
        );
      }
      return ConnectDate.toLogical(schema, Number((node as JsonNumberNode).text));
    case TIME_LOGICAL_NAME:
      if (!isIntNode(node)) {
        throw new DataException(
          `Invalid type for Time, underlying representation should be integer but was ${jsonNodeType(node)}`,
        );
      }
      return ConnectTime.toLogical(schema, Number((node as JsonNumberNode).text));
    case TIMESTAMP_LOGICAL_NAME:
      if (node.kind !== "number" || !node.integral) {
        throw new DataException(
          `Invalid type for Timestamp, underlying representation should be integral but was ${
            jsonNodeType(node)
          }`,
        );
      }
      return ConnectTimestamp.toLogical(schema, BigInt.asIntN(64, BigInt(node.text)));
  }
  return undefined;
}

function requireDate(value: unknown, logicalName: string): Date {
  if (!(value instanceof Date)) {
    throw new DataException(
      `Invalid type for ${logicalName}, expected Date but was ${describeValueType(value)}`,
    );
  }
  return value;
}
