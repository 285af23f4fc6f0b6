/**
 * Renders one scalar Connect value the way the table API represents it: every value is a string on the
 * instance, so every value is sent as one.
 *
 * | Value                         | Sent as                                  |
 * |-------------------------------|------------------------------------------|
 * | Timestamp (or a schemaless Date) | `yyyy-MM-dd HH:mm:ss`, UTC            |
 * | Date                          | `yyyy-MM-dd`                             |
 * | Time                          | `HH:mm:ss`                               |
 * | Decimal (BigDecimal)          | plain decimal string, never scientific   |
 * | boolean                       | `true` / `false`                         |
 * | integer, float, bigint        | plain decimal string (`1e21` → `1000000000000000000000`) |
 * | bytes                         | Base64                                   |
 * | string                        | itself                                   |
 */
import { encodeBase64 } from "../connect/base64.ts";
import { BigDecimal } from "../connect/big_decimal.ts";
import { DATE_LOGICAL_NAME, TIME_LOGICAL_NAME } from "../connect/logical_names.ts";
import type { Schema } from "../connect/schema.ts";
import { describeValueType, isConnectMap, Struct } from "../connect/struct.ts";
import { MappingError } from "./record_error.ts";

/** True for values the nested rule deals with: Struct, Map (or plain object) and array. */
export function isNested(value: unknown): boolean {
  return value instanceof Struct || Array.isArray(value) || isConnectMap(value);
}

/** The instance's text for a scalar value; `path` names the field in errors. */
export function renderScalar(schema: Schema | null, value: unknown, path: string): string {
  switch (typeof value) {
    case "string":
      return value;
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "number":
      return renderNumber(value, path);
  }
  if (value instanceof Date) return renderTemporal(schema?.name ?? null, value, path);
  if (value instanceof BigDecimal) return value.toPlainString();
  if (value instanceof Uint8Array) return encodeBase64(value);
  throw new MappingError(
    `field "${path}" holds a ${describeValueType(value)}, which has no instance representation`,
  );
}

/**
 * The JSON text of a scalar inside a stringified nested value: numbers (decimals and 64-bit integers included)
 * stay JSON numbers with every digit, booleans stay booleans, everything else is a JSON string of its
 * instance rendering.
 */
export function scalarJson(schema: Schema | null, value: unknown, path: string): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" || typeof value === "bigint" || value instanceof BigDecimal) {
    return renderScalar(schema, value, path);
  }
  return JSON.stringify(renderScalar(schema, value, path));
}

function renderNumber(value: number, path: string): string {
  if (!Number.isFinite(value)) {
    throw new MappingError(`field "${path}" holds ${value}, which is not a number the instance can store`);
  }
  if (Number.isInteger(value)) return BigInt(value).toString();
  const text = String(value);
  // Shortest round-trip text, expanded when JavaScript chose an exponent (1e-7 → 0.0000001).
  return /e/i.test(text) ? BigDecimal.parse(text).toPlainString() : text;
}

function renderTemporal(logicalName: string | null, value: Date, path: string): string {
  const millis = value.getTime();
  const year = value.getUTCFullYear();
  if (Number.isNaN(millis) || year < 0 || year > 9999) {
    throw new MappingError(`field "${path}" holds a date outside the years 0000-9999`);
  }
  const iso = value.toISOString(); // yyyy-MM-ddTHH:mm:ss.sssZ for years 0000-9999
  if (logicalName === DATE_LOGICAL_NAME) return iso.slice(0, 10);
  if (logicalName === TIME_LOGICAL_NAME) return iso.slice(11, 19);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
