/**
 * Kafka's `Values.parseString` for InsertHeader's `value.literal`: the literal becomes a typed header value.
 *
 * - `true` / `false` (any case) → BOOLEAN;
 * - a number with no fractional part (`42`, `1.0`, `-7`) → the smallest of INT8, INT16, INT32, INT64 that holds
 *   it; larger integers → Decimal;
 * - other numbers (`1.5`, `2e-3`) → FLOAT32 when finite as a float, else FLOAT64;
 * - ISO-8601 `yyyy-MM-dd`, `HH:mm:ss.SSS'Z'` and `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` → Date, Time, Timestamp;
 * - anything else → STRING, unchanged.
 *
 * Not reproduced: Kafka also parses array (`[1,2]`) and map (`{a:1}`) literals; here they stay strings.
 */
import { BigDecimal } from "../big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../logical.ts";
import { Schema, type SchemaAndValue } from "../schema.ts";

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_TIME = /^(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function integerSchemaAndValue(n: bigint): SchemaAndValue | null {
  if (n >= -128n && n <= 127n) return { schema: Schema.INT8_SCHEMA, value: Number(n) };
  if (n >= -32768n && n <= 32767n) return { schema: Schema.INT16_SCHEMA, value: Number(n) };
  if (n >= -(2n ** 31n) && n < 2n ** 31n) return { schema: Schema.INT32_SCHEMA, value: Number(n) };
  if (n >= -(2n ** 63n) && n < 2n ** 63n) {
    return { schema: Schema.INT64_SCHEMA, value: Number.isSafeInteger(Number(n)) ? Number(n) : n };
  }
  return null;
}

function parseNumber(text: string): SchemaAndValue {
  const decimal = BigDecimal.parse(text);
  if (decimal.isInteger()) {
    const exact = integerSchemaAndValue(decimal.toBigInt());
    if (exact !== null) return exact;
  }
  const double = decimal.toNumber();
  if (decimal.scale !== 0 && Number.isFinite(Math.fround(double))) {
    return { schema: Schema.FLOAT32_SCHEMA, value: Math.fround(double) };
  }
  if (decimal.scale !== 0 && Number.isFinite(double)) return { schema: Schema.FLOAT64_SCHEMA, value: double };
  return { schema: ConnectDecimal.schema(decimal.scale), value: decimal };
}

export function parseHeaderLiteral(text: string): SchemaAndValue {
  const trimmed = text.trim();
  const lower = trimmed.toLowerCase();
  if (lower === "true" || lower === "false") {
    return { schema: Schema.BOOLEAN_SCHEMA, value: lower === "true" };
  }
  if (NUMBER.test(trimmed)) return parseNumber(trimmed);
  if (ISO_DATE.test(trimmed)) {
    const date = new Date(`${trimmed}T00:00:00Z`);
    if (!Number.isNaN(date.getTime())) return { schema: ConnectDate.SCHEMA, value: date };
  }
  const time = ISO_TIME.exec(trimmed);
  if (time && Number(time[1]) < 24 && Number(time[2]) < 60 && Number(time[3]) < 60) {
    return { schema: ConnectTime.SCHEMA, value: new Date(`1970-01-01T${trimmed}`) };
  }
  if (ISO_TIMESTAMP.test(trimmed)) {
    const date = new Date(trimmed);
    if (!Number.isNaN(date.getTime())) return { schema: ConnectTimestamp.SCHEMA, value: date };
  }
  return { schema: Schema.STRING_SCHEMA, value: text };
}
