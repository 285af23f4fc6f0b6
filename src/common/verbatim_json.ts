/**
 * The JSON bytes an object was parsed from, handed on as they are when they are exactly what `JSON.stringify`
 * would write for it: a source row's value then costs no serialisation, no string and no encoding (measured on
 * a 100,000-row backfill, writing each row again was the task thread's largest cost after garbage collection,
 * and its 2 KB string and 2 KB copy per row a quarter of what the thread allocated).
 *
 * Whoever parses a body remembers a row's bytes only when the text they were cut from is valid UTF-8
 * (`rememberJsonSource`). The rest is told here (`verbatimJson`), without comparing the text:
 * - no character beyond the Basic Multilingual Plane (a 4-byte sequence), which Jackson escapes as surrogates
 *   (json_text.ts); other characters are written as they are, by JSON.stringify and by Jackson;
 * - every backslash must start one of the escapes JSON.stringify writes (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`,
 *   `\f`): JSON text cannot hold those characters unescaped, so each was escaped in the text, and the same way
 *   JSON.stringify escapes it. A `\u` or `\/` is refused (JSON.stringify writes `\u` in lower case where the
 *   JSON converter's Jackson writes upper case: schemaless_fast_path.ts);
 * - the text must count exactly the characters (UTF-16 units) JSON.stringify writes: for an object of strings,
 *   booleans, nulls and nested such objects, `canonicalLength` plus one per escape. Text with whitespace between
 *   tokens or a key written twice is longer. (Text of ASCII counts a unit per byte, and is not counted again.) Numbers (`1e2` and `100` are as long) and integer-like keys (which JavaScript
 *   objects reorder) are never taken.
 *
 * The bytes stay right as long as the object is not changed; Connect values are not (transforms build new
 * ones, which have no bytes remembered). The map holds them weakly: they go with their object.
 */

/** A value's bytes: ASCII text as such; other text as `{ utf8 }`, whose characters are counted when asked. */
const sources = new WeakMap<object, Uint8Array | { readonly utf8: Uint8Array }>();

/** Deeper values are written by the writer (rows nest display values and reference links one level). */
const MAX_DEPTH = 4;

/**
 * Remembers that `value` was parsed from `bytes` (a view of the body, not copied). The caller vouches that they
 * are valid UTF-8 (no byte was replaced when decoding them), and tells whether they are pure ASCII.
 */
export function rememberJsonSource(value: object, bytes: Uint8Array, ascii: boolean): void {
  sources.set(value, ascii ? bytes : { utf8: bytes });
}

/** The bytes `value` was parsed from, when they are exactly `JSON.stringify(value)`'s; else undefined. */
export function verbatimJson(value: unknown): Uint8Array | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const source = sources.get(value);
  if (source === undefined) return undefined;
  const bytes = source instanceof Uint8Array ? source : source.utf8;
  const units = source === bytes ? bytes.length : utf16Units(bytes);
  const escapes = units < 0 ? -1 : shortEscapes(bytes);
  return escapes >= 0 && canonicalLength(value, 0) + escapes === units ? bytes : undefined;
}

/**
 * The UTF-16 length of valid UTF-8 (every byte but a continuation byte starts one character); -1 when a
 * character lies beyond the Basic Multilingual Plane (a 4-byte sequence's first byte).
 */
function utf16Units(bytes: Uint8Array): number {
  let units = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte >= 0xf0) return -1;
    if ((byte & 0xc0) !== 0x80) units++;
  }
  return units;
}

const BACKSLASH = 0x5c;
/** The characters after a backslash that JSON.stringify and Jackson both write: `"` `\\` `b` `f` `n` `r` `t`. */
const SHORT_ESCAPE = new Uint8Array(128);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;

/** How many escapes `bytes` holds, each one JSON.stringify writes too; -1 when another one is there. */
function shortEscapes(bytes: Uint8Array): number {
  let count = 0;
  for (let i = bytes.indexOf(BACKSLASH); i >= 0; i = bytes.indexOf(BACKSLASH, i + 2)) {
    if (SHORT_ESCAPE[bytes[i + 1]] !== 1) return -1;
    count++;
  }
  return count;
}

/** The UTF-16 length of JSON.stringify(value), escapes not counted; -1 for what is not counted. */
function canonicalLength(value: unknown, depth: number): number {
  if (typeof value === "string") return value.length + 2;
  if (value === null || value === true) return 4;
  if (value === false) return 5;
  if (typeof value !== "object" || depth >= MAX_DEPTH || Object.getPrototypeOf(value) !== Object.prototype) {
    return -1;
  }
  const object = value as Record<string, unknown>;
  let length = 1; // `{`, then `"key":value` and a comma or the closing `}` after each
  let fields = 0;
  for (const key in object) {
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) return -1;
    const inner = canonicalLength(object[key], depth + 1);
    if (inner < 0) return -1;
    length += key.length + 3 + inner + 1;
    fields++;
  }
  return fields === 0 ? 2 : length;
}
