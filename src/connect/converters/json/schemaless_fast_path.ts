/**
 * A fast path for the most common value a source emits: a schemaless Map of API strings (and nested maps of
 * strings for display values and reference links). For such values Jackson's output and `JSON.stringify`'s are
 * the same bytes, except for the rare control characters JSON.stringify writes as `\u00xx` in lower case, and
 * characters beyond the Basic Multilingual Plane, which Jackson escapes as surrogates (json_text.ts): any `\u` or
 * surrogate in the result sends the value back to the exact writer. Numbers are left to the
 * exact writer too, since Java formats doubles differently.
 */

/** JSON text for `value` when it is made only of strings, booleans, nulls, Maps with string keys and plain objects; else undefined. */
export function schemalessJsonFastPath(value: unknown): string | undefined {
  const plain = toPlain(value, 0);
  if (plain === undefined) return undefined;
  const text = JSON.stringify(plain);
  return text.includes("\\u") || SURROGATE.test(text) ? undefined : text;
}

const SURROGATE = /[\uD800-\uDFFF]/;

const MAX_DEPTH = 4;

function toPlain(value: unknown, depth: number): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (depth >= MAX_DEPTH) return undefined;
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) {
      if (typeof k !== "string") return undefined;
      const p = toPlain(v, depth + 1);
      if (p === undefined) return undefined;
      out[k] = p;
    }
    return out;
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const source = value as Record<string, unknown>;
    for (const k in source) {
      if (toPlain(source[k], depth + 1) === undefined) return undefined;
    }
    return value;
  }
  return undefined;
}
