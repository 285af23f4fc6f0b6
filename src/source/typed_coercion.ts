/**
 * Typed mode (`svc.source.schema.mode=typed`): the declared types of `svc.source.typed.fields` and the coercion of
 * the API's strings into them. Every typed schema is optional, and an empty string is null for every type but
 * `string`. A value that does not fit is a `TypedValueError`; nothing is silently rounded, clamped or truncated.
 *
 * | Type           | Connect schema            | Accepted text                                                        |
 * |----------------|---------------------------|----------------------------------------------------------------------|
 * | string         | STRING                    | as is                                                                |
 * | boolean        | BOOLEAN                   | `true`, `false`, `1`, `0`                                            |
 * | int8..int64    | INT8, INT16, INT32, INT64 | decimal integer within the type's range                             |
 * | float32/64     | FLOAT32, FLOAT64          | decimal number (exponent allowed), finite, float32 within ±3.4028235e38 |
 * | bytes          | BYTES                     | standard Base64 (padding optional)                                   |
 * | timestamp      | Timestamp                 | `yyyy-MM-dd HH:mm:ss`, UTC                                           |
 * | date           | Date                      | `yyyy-MM-dd`                                                         |
 * | time           | Time                      | `HH:mm:ss`                                                           |
 * | decimal(s)     | Decimal, scale s          | decimal number representable at scale s without rounding            |
 * | decimal        | Decimal, scale from data  | as decimal(s), s = the largest scale among the first values seen     |
 */
import { BigDecimal } from "../connect/big_decimal.ts";
import { decodeBase64 } from "../connect/base64.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../connect/logical.ts";
import { type Schema, Schema as Schemas } from "../connect/schema.ts";
import { TYPED_FIELD, TYPED_FIELD_TYPES } from "../config/rules.ts";
import { parseGlideDate, parseGlideDateTime, parseGlideTime } from "./glide_timestamp.ts";

export type TypedType =
  | { readonly kind: "string" | "boolean" | "float32" | "float64" | "bytes" | "timestamp" | "date" | "time" }
  | { readonly kind: "int8" | "int16" | "int32" | "int64" }
  /** `scale` null: taken from the data (plain `decimal`). */
  | { readonly kind: "decimal"; readonly scale: number | null };

/** A value that does not fit its declared type. The message never contains the value (it may be personal data). */
export class TypedValueError extends Error {
  override name = "TypedValueError";
  constructor(readonly type: string, reason: string) {
    super(`value is not a valid ${type}: ${reason}`);
  }
}

/** Every allowed type but `decimal`, whose scale needs its own parsing: the list the config layer validates. */
const SIMPLE_KINDS: ReadonlySet<string> = new Set(TYPED_FIELD_TYPES.filter((t) => t !== "decimal"));
const DECIMAL_WITH_SCALE = /^decimal\((\d+)\)$/;
const INTEGER_TEXT = /^[+-]?\d+$/;
const DECIMAL_NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const PLAIN_DECIMAL_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;
const FLOAT32_MAX = 3.4028234663852886e38;
const INT_RANGES = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-2147483648, 2147483647],
} as const;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function typeName(t: TypedType): string {
  return t.kind === "decimal" && t.scale !== null ? `decimal(${t.scale})` : t.kind;
}

export function parseTypedType(text: string): TypedType {
  if (SIMPLE_KINDS.has(text)) return { kind: text } as TypedType;
  if (text === "decimal") return { kind: "decimal", scale: null };
  const m = DECIMAL_WITH_SCALE.exec(text);
  if (m) return { kind: "decimal", scale: Number(m[1]) };
  throw new RangeError(`unknown typed-mode type '${text}'`);
}

/** `svc.source.typed.fields` entries (`field:type`) by field name. */
export function parseTypedFields(entries: readonly string[]): Map<string, TypedType> {
  const out = new Map<string, TypedType>();
  for (const entry of entries) {
    const m = TYPED_FIELD.exec(entry.trim());
    if (!m) throw new RangeError(`invalid svc.source.typed.fields entry '${entry}': expected field:type`);
    out.set(m[1], parseTypedType(m[2]));
  }
  return out;
}

/** The optional Connect schema of a type; a decimal needs its scale resolved. */
export function typedSchema(t: TypedType, scale: number | null = null): Schema {
  switch (t.kind) {
    case "string":
      return Schemas.OPTIONAL_STRING_SCHEMA;
    case "boolean":
      return Schemas.OPTIONAL_BOOLEAN_SCHEMA;
    case "int8":
      return Schemas.OPTIONAL_INT8_SCHEMA;
    case "int16":
      return Schemas.OPTIONAL_INT16_SCHEMA;
    case "int32":
      return Schemas.OPTIONAL_INT32_SCHEMA;
    case "int64":
      return Schemas.OPTIONAL_INT64_SCHEMA;
    case "float32":
      return Schemas.OPTIONAL_FLOAT32_SCHEMA;
    case "float64":
      return Schemas.OPTIONAL_FLOAT64_SCHEMA;
    case "bytes":
      return Schemas.OPTIONAL_BYTES_SCHEMA;
    case "timestamp":
      return ConnectTimestamp.builder().optional().build();
    case "date":
      return ConnectDate.builder().optional().build();
    case "time":
      return ConnectTime.builder().optional().build();
    case "decimal": {
      const s = t.scale ?? scale;
      if (s === null) throw new RangeError("a decimal schema needs a scale");
      return ConnectDecimal.builder(s).optional().build();
    }
  }
}

/**
 * The scale of a plain `decimal` from sample values: the largest scale among those that parse (never negative),
 * or null when no sample has a value yet.
 */
export function decimalScaleFromSamples(samples: Iterable<unknown>): number | null {
  let scale: number | null = null;
  for (const s of samples) {
    if (typeof s !== "string" || s === "" || !PLAIN_DECIMAL_TEXT.test(s)) continue;
    const d = BigDecimal.tryParse(s);
    if (d) scale = Math.max(scale ?? 0, d.scale);
  }
  return scale;
}

/** `value` at exactly `scale`, or a TypedValueError when that would need rounding. */
function rescaleExactly(value: BigDecimal, scale: number, type: string): BigDecimal {
  if (value.scale === scale) return value;
  if (value.scale < scale) return new BigDecimal(value.unscaled * 10n ** BigInt(scale - value.scale), scale);
  const divisor = 10n ** BigInt(value.scale - scale);
  if (value.unscaled % divisor !== 0n) {
    throw new TypedValueError(type, `it has more than ${scale} decimal places and would need rounding`);
  }
  return new BigDecimal(value.unscaled / divisor, scale);
}

function integer(text: string, type: "int8" | "int16" | "int32" | "int64"): number | bigint {
  if (!INTEGER_TEXT.test(text)) throw new TypedValueError(type, "not a decimal integer");
  if (type === "int64") {
    const big = BigInt(text);
    if (big < INT64_MIN || big > INT64_MAX) throw new TypedValueError(type, "outside the int64 range");
    const n = Number(big);
    return Number.isSafeInteger(n) ? n : big;
  }
  const n = Number(text);
  const [min, max] = INT_RANGES[type];
  if (n < min || n > max) throw new TypedValueError(type, `outside the ${type} range ${min}..${max}`);
  return n;
}

function float(text: string, type: "float32" | "float64"): number {
  if (!DECIMAL_NUMBER_TEXT.test(text)) throw new TypedValueError(type, "not a decimal number");
  const n = Number(text);
  if (!Number.isFinite(n)) throw new TypedValueError(type, `outside the ${type} range`);
  if (type === "float32" && Math.abs(n) > FLOAT32_MAX) {
    throw new TypedValueError(type, "outside the float32 range");
  }
  return n;
}

/**
 * Coerces one API value to a type. `scale` is the resolved scale of a decimal. Returns null for null/absent and,
 * for every type but string, for the empty string.
 */
export function coerceTyped(t: TypedType, raw: unknown, scale: number | null = null): unknown {
  if (raw === null || raw === undefined) return null;
  const text = typeof raw === "string" ? raw : String(raw);
  if (t.kind === "string") return text;
  if (text === "") return null;
  switch (t.kind) {
    case "boolean":
      if (text === "true" || text === "1") return true;
      if (text === "false" || text === "0") return false;
      throw new TypedValueError("boolean", "expected true, false, 1 or 0");
    case "int8":
    case "int16":
    case "int32":
    case "int64":
      return integer(text, t.kind);
    case "float32":
    case "float64":
      return float(text, t.kind);
    case "bytes": {
      const bytes = decodeBase64(text);
      if (bytes === null) throw new TypedValueError("bytes", "not Base64");
      return bytes;
    }
    case "timestamp": {
      const ms = parseGlideDateTime(text);
      if (Number.isNaN(ms)) throw new TypedValueError("timestamp", "expected yyyy-MM-dd HH:mm:ss");
      return new Date(ms);
    }
    case "date": {
      const ms = parseGlideDate(text);
      if (Number.isNaN(ms)) throw new TypedValueError("date", "expected yyyy-MM-dd");
      return new Date(ms);
    }
    case "time": {
      const ms = parseGlideTime(text);
      if (Number.isNaN(ms)) throw new TypedValueError("time", "expected HH:mm:ss");
      return new Date(ms);
    }
    case "decimal": {
      const type = typeName(t);
      const s = t.scale ?? scale;
      if (s === null) throw new RangeError("decimal scale not resolved");
      const parsed = PLAIN_DECIMAL_TEXT.test(text) ? BigDecimal.tryParse(text) : null;
      if (parsed === null) throw new TypedValueError(type, "not a decimal number");
      return rescaleExactly(parsed, s, type);
    }
  }
}
