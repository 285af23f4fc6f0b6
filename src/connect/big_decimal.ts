/**
 * An exact decimal number: Java's `java.math.BigDecimal`, the value type of Connect's Decimal logical type.
 *
 * The value is `unscaled × 10^-scale` with an arbitrary-precision `bigint` unscaled value, so decimals never pass
 * through a binary float. Like Java, equality includes the scale (`1.56` ≠ `1.560`); use `compareTo` for numeric
 * comparison. `toString()` is Java's (scientific notation for small magnitudes and negative scales), which is what
 * Kafka's JsonConverter prints for `decimal.format=NUMERIC`.
 */
import { DataException } from "./errors.ts";
import { formatJavaDouble } from "./java_format.ts";

/** Java's `BigDecimal(String)` grammar: sign, digits with an optional point, optional exponent. */
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

const TEN = 10n;

function pow10(n: number): bigint {
  return TEN ** BigInt(n);
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

export class BigDecimal {
  /** @param unscaled the unscaled integer value. @param scale digits after the decimal point (may be negative). */
  constructor(readonly unscaled: bigint, readonly scale: number) {
    if (!Number.isInteger(scale)) throw new RangeError(`BigDecimal scale must be an integer, got ${scale}`);
  }

  /** Parses Java `BigDecimal` text (`1.56`, `-0.5`, `1.5600`, `1E+3`, `.5`); null when it is not a number. */
  static tryParse(text: string): BigDecimal | null {
    const m = DECIMAL_TEXT.exec(text);
    if (m === null) return null;
    const [, sign, integer, fraction = "", exponent = "0"] = m;
    if (integer === "" && fraction === "") return null;
    const scale = fraction.length - Number(exponent);
    if (!Number.isSafeInteger(scale)) return null;
    const unscaled = BigInt(`${sign === "-" ? "-" : ""}${integer}${fraction}` || "0");
    return new BigDecimal(unscaled, scale);
  }

  /** Like `tryParse`, but throws `DataException` for text that is not a decimal number. */
  static parse(text: string): BigDecimal {
    const parsed = BigDecimal.tryParse(text);
    if (parsed === null) throw new DataException(`Invalid decimal number: ${JSON.stringify(text)}`);
    return parsed;
  }

  /** Java's `BigDecimal.valueOf(double)`: the decimal of `Double.toString(value)` (so 0.1 → 0.1, scale 1). */
  static fromNumber(value: number): BigDecimal {
    if (!Number.isFinite(value)) throw new DataException(`Cannot convert ${value} to a decimal`);
    return BigDecimal.parse(formatJavaDouble(value));
  }

  /** Java's `BigDecimal.valueOf(long)`: scale 0. */
  static fromInteger(value: number | bigint): BigDecimal {
    return new BigDecimal(BigInt(value), 0);
  }

  signum(): -1 | 0 | 1 {
    return this.unscaled < 0n ? -1 : this.unscaled > 0n ? 1 : 0;
  }

  /** Java's `precision()`: the number of digits of the unscaled value (1 for zero). */
  precision(): number {
    return abs(this.unscaled).toString().length;
  }

  /** The same number with another scale; throws `DataException` if that would need rounding. */
  withScale(scale: number): BigDecimal {
    if (scale === this.scale) return this;
    if (scale > this.scale) return new BigDecimal(this.unscaled * pow10(scale - this.scale), scale);
    const divisor = pow10(this.scale - scale);
    if (this.unscaled % divisor !== 0n) {
      throw new DataException(`Rounding necessary to change the scale of ${this} to ${scale}`);
    }
    return new BigDecimal(this.unscaled / divisor, scale);
  }

  /** Java's `stripTrailingZeros()`. */
  stripTrailingZeros(): BigDecimal {
    if (this.unscaled === 0n) return new BigDecimal(0n, 0);
    let unscaled = this.unscaled;
    let scale = this.scale;
    while (unscaled % TEN === 0n) {
      unscaled /= TEN;
      scale--;
    }
    return new BigDecimal(unscaled, scale);
  }

  /** True when the value has no fractional part. */
  isInteger(): boolean {
    return this.scale <= 0 || this.unscaled % pow10(this.scale) === 0n;
  }

  /** The integer part, truncated toward zero (Java's `toBigInteger()`). */
  toBigInt(): bigint {
    return this.scale <= 0 ? this.unscaled * pow10(-this.scale) : this.unscaled / pow10(this.scale);
  }

  /** Numeric comparison ignoring scale: -1, 0 or 1 (Java's `compareTo`). */
  compareTo(other: BigDecimal): -1 | 0 | 1 {
    const scale = Math.max(this.scale, other.scale);
    const a = this.unscaled * pow10(scale - this.scale);
    const b = other.unscaled * pow10(scale - other.scale);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Java's `equals`: same unscaled value and same scale. */
  equals(other: unknown): boolean {
    return other instanceof BigDecimal && other.unscaled === this.unscaled && other.scale === this.scale;
  }

  /** The nearest double (Java's `doubleValue()`). */
  toNumber(): number {
    return Number(this.toString());
  }

  /** Java's `toString()`: plain when scale ≥ 0 and the adjusted exponent ≥ -6, otherwise scientific (`1.5E-7`). */
  toString(): string {
    const sign = this.unscaled < 0n ? "-" : "";
    const coefficient = abs(this.unscaled).toString();
    const adjusted = -this.scale + (coefficient.length - 1);
    if (this.scale >= 0 && adjusted >= -6) return sign + plainDigits(coefficient, this.scale);
    const mantissa = coefficient.length > 1 ? `${coefficient[0]}.${coefficient.slice(1)}` : coefficient;
    const exponent = adjusted === 0 ? "" : `E${adjusted > 0 ? "+" : ""}${adjusted}`;
    return sign + mantissa + exponent;
  }

  /** Java's `toPlainString()`: never scientific (`0.00000015`, `1000`). */
  toPlainString(): string {
    const sign = this.unscaled < 0n ? "-" : "";
    const coefficient = abs(this.unscaled).toString();
    if (this.scale <= 0) return this.unscaled === 0n ? "0" : sign + coefficient + "0".repeat(-this.scale);
    return sign + plainDigits(coefficient, this.scale);
  }

  /** JSON.stringify support: the plain decimal string (never a lossy JSON number). */
  toJSON(): string {
    return this.toPlainString();
  }
}

function plainDigits(coefficient: string, scale: number): string {
  if (scale === 0) return coefficient;
  if (coefficient.length > scale) {
    return `${coefficient.slice(0, coefficient.length - scale)}.${
      coefficient.slice(coefficient.length - scale)
    }`;
  }
  return `0.${"0".repeat(scale - coefficient.length)}${coefficient}`;
}

/**
 * Java's `BigInteger.toByteArray()`: the minimal big-endian two's-complement bytes (at least one byte).
 * 156 → `00 9C`, -1 → `FF`, 0 → `00`.
 */
export function bigintToTwosComplement(value: bigint): Uint8Array {
  // Java's bitLength excludes the sign bit: for negatives it is the bit length of (-value - 1).
  const magnitude = value < 0n ? -value - 1n : value;
  const bitLength = magnitude === 0n ? 0 : magnitude.toString(2).length;
  const length = Math.floor(bitLength / 8) + 1;
  let unsigned = BigInt.asUintN(length * 8, value);
  const bytes = new Uint8Array(length);
  for (let i = length - 1; i >= 0; i--) {
    bytes[i] = Number(unsigned & 0xffn);
    unsigned >>= 8n;
  }
  return bytes;
}

/** Java's `new BigInteger(bytes)`: big-endian two's complement; throws `DataException` for zero bytes, as Java does. */
export function twosComplementToBigint(bytes: Uint8Array): bigint {
  if (bytes.length === 0) throw new DataException("Zero length BigInteger");
  let unsigned = 0n;
  for (const b of bytes) unsigned = (unsigned << 8n) | BigInt(b);
  return BigInt.asIntN(bytes.length * 8, unsigned);
}
