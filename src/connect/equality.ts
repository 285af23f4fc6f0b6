/**
 * Deep equality of Connect values, the counterpart of Java's `Objects.equals` on Connect data.
 *
 * It lives in its own module, importing nothing from connect/, so that schemas (default values), structs and
 * transforms can all use it without import cycles: objects that know their own equality (Struct, BigDecimal,
 * schemas) are compared through their `equals` method.
 *
 * Rules, chosen to match what Java considers equal for the same data:
 * - INT64 values may be `number` or `bigint` (see `schema.ts`); `12` equals `12n`.
 * - `NaN` equals `NaN` (as `Double.equals` does); `0` equals `-0` (deliberately looser than Java).
 * - Bytes compare by content (Java compares `ByteBuffer`s by content too).
 * - Dates compare by epoch millis.
 * - MAP values may be a `Map` or a plain object; a `Map` with string keys equals a plain object with the same
 *   entries. Entry order does not matter, as for Java's `HashMap`.
 * - Arrays compare element by element, in order.
 */
import { isPlainObject } from "../common/plain_object.ts";

/** An object that defines its own equality, like Java's `equals`. */
interface SelfEquating {
  equals(other: unknown): boolean;
}

function isSelfEquating(value: unknown): value is SelfEquating {
  return typeof value === "object" && value !== null &&
    typeof (value as { equals?: unknown }).equals === "function";
}

function entriesOf(value: Map<unknown, unknown> | Record<string, unknown>): [unknown, unknown][] {
  return value instanceof Map ? [...value.entries()] : Object.entries(value);
}

function mapsEqual(
  a: Map<unknown, unknown> | Record<string, unknown>,
  b: Map<unknown, unknown> | Record<string, unknown>,
): boolean {
  const left = entriesOf(a);
  const right = entriesOf(b);
  if (left.length !== right.length) return false;
  // Fast path: string and number keys are found by lookup; other keys (Structs, arrays...) by deep search.
  const rightLookup = b instanceof Map ? b : new Map(Object.entries(b));
  return left.every(([key, value]) => {
    if (rightLookup.has(key)) return valuesEqual(value, rightLookup.get(key));
    return right.some(([k, v]) => valuesEqual(key, k) && valuesEqual(value, v));
  });
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Deep equality of two Connect values (see the module comment for the rules). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a === "number" || typeof a === "bigint") {
    if (typeof b !== "number" && typeof b !== "bigint") return false;
    if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
    // Mixed number/bigint: equal only for exactly the same integer.
    const n = typeof a === "number" ? a : b as number;
    const big = typeof a === "bigint" ? a : b as bigint;
    return Number.isInteger(n) && BigInt(n) === big;
  }
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && bytesEqual(a, b);
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((item, i) => valuesEqual(item, b[i]));
  }
  const aIsMap = a instanceof Map || isPlainObject(a);
  const bIsMap = b instanceof Map || isPlainObject(b);
  if (aIsMap || bIsMap) {
    return aIsMap && bIsMap &&
      mapsEqual(a as Map<unknown, unknown> | Record<string, unknown>, b as Map<unknown, unknown>);
  }
  if (isSelfEquating(a)) return a.equals(b);
  return false;
}
