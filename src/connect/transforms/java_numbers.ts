/**
 * Java's numeric conversions, as Cast (and MaskField) perform them on boxed values: `Number.byteValue()`,
 * `intValue()`, `longValue()` and friends, and the `parseXxx` methods for strings.
 *
 * JS numbers carry no Java type, so callers say whether a number is floating-point (a FLOAT32/FLOAT64 schema, or
 * a non-integer schemaless number): Java narrows a double to an int by saturating (NaN → 0) and then wraps to the
 * smaller width, while integral values simply wrap — `(byte) 300L` is 44 but `(byte) 1e10` is -1.
 */
import { BigDecimal } from "../big_decimal.ts";
import { javaTrim } from "../java_trim.ts";

/** A numeric Connect value: JS number, INT64 bigint, or Decimal. */
export type JavaNumber = number | bigint | BigDecimal;

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** Java's `(int) d` for a double: truncation, saturation, NaN → 0. */
function doubleToInt(d: number): number {
  if (Number.isNaN(d)) return 0;
  if (d <= INT_MIN) return INT_MIN;
  if (d >= INT_MAX) return INT_MAX;
  return Math.trunc(d);
}

/** Java's `(long) d` for a double. */
function doubleToLong(d: number): bigint {
  if (Number.isNaN(d)) return 0n;
  if (d <= -(2 ** 63)) return LONG_MIN;
  if (d >= 2 ** 63) return LONG_MAX;
  return BigInt(Math.trunc(d));
}

/** The value's integral bits before narrowing: `longValue()` (Decimal: low 64 bits of the integer part). */
function integralBits(value: JavaNumber, isFloating: boolean, width: 32 | 64): bigint {
  if (value instanceof BigDecimal) return BigInt.asIntN(64, value.toBigInt());
  if (typeof value === "bigint") return value;
  if (isFloating) return width === 64 ? doubleToLong(value) : BigInt(doubleToInt(value));
  return BigInt(Math.trunc(value));
}

/** Java's `Number.byteValue()` / `shortValue()` / `intValue()`. */
export function narrowToInt(value: JavaNumber, isFloating: boolean, bits: 8 | 16 | 32): number {
  return Number(BigInt.asIntN(bits, integralBits(value, isFloating, 32)));
}

/** Java's `Number.longValue()`, as a number when it is a safe integer. */
export function narrowToLong(value: JavaNumber, isFloating: boolean): number | bigint {
  const long = BigInt.asIntN(64, integralBits(value, isFloating, 64));
  return long >= -BigInt(Number.MAX_SAFE_INTEGER) && long <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(long)
    : long;
}

/** Java's `Number.doubleValue()`. */
export function toDouble(value: JavaNumber): number {
  return value instanceof BigDecimal ? value.toNumber() : Number(value);
}

/** Java's `Number.floatValue()`. */
export function toFloat(value: JavaNumber): number {
  return Math.fround(toDouble(value));
}

/** Thrown for text Java's parse methods reject (Java's `NumberFormatException`). */
export class NumberFormatError extends Error {
  constructor(text: string) {
    super(`For input string: "${text}"`);
    this.name = "NumberFormatException";
  }
}

const INTEGER_RANGES = {
  8: [-128n, 127n],
  16: [-32768n, 32767n],
  32: [-(2n ** 31n), 2n ** 31n - 1n],
  64: [LONG_MIN, LONG_MAX],
};

/** Java's `Byte/Short/Integer/Long.parseXxx`: optional sign and decimal digits only, within range. */
export function parseJavaInteger(text: string, bits: 8 | 16 | 32 | 64): number | bigint {
  if (!/^[+-]?\d+$/.test(text)) throw new NumberFormatError(text);
  const value = BigInt(text);
  const [min, max] = INTEGER_RANGES[bits];
  if (value < min || value > max) throw new NumberFormatError(text);
  return bits === 64 && (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER))
    ? value
    : Number(value);
}

/** Java's `Double.parseDouble` grammar (decimal and `NaN`/`Infinity` forms; surrounding whitespace allowed). */
const JAVA_DECIMAL_FLOAT = /^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)$/;

/** Java's `Double.parseDouble` (hexadecimal floating literals are not supported). */
export function parseJavaDouble(text: string): number {
  const trimmed = javaTrim(text);
  if (!JAVA_DECIMAL_FLOAT.test(trimmed)) throw new NumberFormatError(text);
  return Number(trimmed.replace(/[fFdD]$/, ""));
}

/** Java's `Float.parseFloat`. */
export function parseJavaFloat(text: string): number {
  return Math.fround(parseJavaDouble(text));
}
