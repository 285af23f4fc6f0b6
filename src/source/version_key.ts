/**
 * A row version key `timestamp|sys_id|sys_mod_count` (dedup_cache.ts) as six 32-bit numbers instead of a string:
 * the sys id's 32 hex digits as four words, the timestamp as epoch seconds, the mod count as a number. A cache of
 * 50,000 versions held as strings took about 100 bytes a version (the 54-character string and its Set entry);
 * packed, 24 bytes in a typed array, which the garbage collector does not have to trace.
 *
 * Packing is exact or refused: only a key that unpacks to the very same string packs (a canonical timestamp of
 * the years 1970–2106, 32 lower-case hex digits, a mod count of at most 9 digits without a leading zero, or
 * none). Any other key (a sys id of another shape, an upper-case one, a mod count like "1,234") is refused and
 * kept as its string by the caller, so two different keys never share a packed form.
 */
import type { Cursor } from "./cursor.ts";
import { formatGlideDateTime, parseGlideDateTime, parseGlideDateTimeAt } from "./glide_timestamp.ts";

/** 32-bit words a packed key takes: sys id (4), epoch seconds, mod count. */
export const PACKED_WORDS = 6;

/** The mod-count word of a key whose mod count is empty (the field missing); no 9-digit count reaches it. */
const NO_MOD_COUNT = 0xffffffff;
const TIMESTAMP_LENGTH = 19;
const SYS_ID_LENGTH = 32;
/** Where the sys id starts and ends in a packable key (after `timestamp|`, before `|mod`). */
const SYS_ID_AT = TIMESTAMP_LENGTH + 1;
const MOD_COUNT_AT = SYS_ID_AT + SYS_ID_LENGTH + 1;
const MAX_MOD_COUNT_DIGITS = 9;
const PIPE = 124;

/** The value of a lower-case hex digit's char code, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/**
 * Writes `key` packed into `words` at `at`; false (words left unspecified) when the key does not pack exactly.
 */
export function packVersionKey(key: string, words: Uint32Array, at: number): boolean {
  const length = key.length;
  if (length < MOD_COUNT_AT || length > MOD_COUNT_AT + MAX_MOD_COUNT_DIGITS) return false;
  if (key.charCodeAt(TIMESTAMP_LENGTH) !== PIPE || key.charCodeAt(MOD_COUNT_AT - 1) !== PIPE) return false;
  // Years before 1000 are read by Date.UTC as 19xx (and before 1970 are negative): not packed.
  const first = key.charCodeAt(0);
  if (first !== 49 && first !== 50) return false; // '1' or '2'
  const ms = parseGlideDateTimeAt(key, 0);
  if (!(ms >= 0 && ms < 0x100000000 * 1000)) return false; // NaN too
  for (let w = 0; w < 4; w++) {
    let word = 0;
    for (let i = SYS_ID_AT + w * 8, end = i + 8; i < end; i++) {
      const d = hexDigit(key.charCodeAt(i));
      if (d < 0) return false;
      word = (word << 4) | d;
    }
    words[at + w] = word;
  }
  words[at + 4] = ms / 1000;
  if (length === MOD_COUNT_AT) {
    words[at + 5] = NO_MOD_COUNT;
    return true;
  }
  if (length > MOD_COUNT_AT + 1 && key.charCodeAt(MOD_COUNT_AT) === 48) return false; // a leading zero
  let mod = 0;
  for (let i = MOD_COUNT_AT; i < length; i++) {
    const d = key.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    mod = mod * 10 + d;
  }
  words[at + 5] = mod;
  return true;
}

/** The last timestamp spelled out by `unpackVersionKey`: keys in order mostly share their second with the last. */
let lastSeconds = -1;
let lastTimestamp = "";

/** The key `words` at `at` were packed from. */
export function unpackVersionKey(words: Uint32Array, at: number): string {
  let sysId = "";
  for (let w = 0; w < 4; w++) sysId += words[at + w].toString(16).padStart(8, "0");
  const mod = words[at + 5];
  if (words[at + 4] !== lastSeconds) {
    lastSeconds = words[at + 4];
    lastTimestamp = formatGlideDateTime(lastSeconds * 1000);
  }
  return `${lastTimestamp}|${sysId}|${mod === NO_MOD_COUNT ? "" : mod}`;
}

/** The timestamp of the packed key at `at`, epoch milliseconds. */
export function packedEpochMs(words: Uint32Array, at: number): number {
  return words[at + 4] * 1000;
}

/** A 32-bit hash of the packed key at `at` (for an open-addressing table). */
export function hashPacked(words: Uint32Array, at: number): number {
  let h = Math.imul(words[at] ^ words[at + 4], 0x9e3779b1);
  h ^= Math.imul(words[at + 1] ^ words[at + 5], 0x85ebca77);
  h ^= Math.imul(words[at + 2], 0xc2b2ae3d);
  h ^= Math.imul(words[at + 3], 0x27d4eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}

/** Whether the packed keys at `a` in `x` and at `b` in `y` are the same key. */
export function samePacked(x: Uint32Array, a: number, y: Uint32Array, b: number): boolean {
  return x[a] === y[b] && x[a + 1] === y[b + 1] && x[a + 2] === y[b + 2] && x[a + 3] === y[b + 3] &&
    x[a + 4] === y[b + 4] && x[a + 5] === y[b + 5];
}

/**
 * Whether `key` begins with `cursor`'s timestamp and sys id, as the key of a 19-character timestamp and a
 * 32-character sys id does: then `cursorSpelledIn` gives the cursor back from the key alone (a cursor's epochMs
 * is always its timestamp parsed, cursor.ts).
 */
export function keySpellsCursor(key: string, cursor: Cursor): boolean {
  return cursor.timestamp.length === TIMESTAMP_LENGTH && cursor.sysId.length === SYS_ID_LENGTH &&
    key.charCodeAt(TIMESTAMP_LENGTH) === PIPE && key.charCodeAt(MOD_COUNT_AT - 1) === PIPE &&
    key.startsWith(cursor.timestamp) && key.startsWith(cursor.sysId, SYS_ID_AT);
}

/** The cursor of a key for which `keySpellsCursor` held. */
export function cursorSpelledIn(key: string): Cursor {
  const timestamp = key.slice(0, TIMESTAMP_LENGTH);
  return {
    timestamp,
    sysId: key.slice(SYS_ID_AT, SYS_ID_AT + SYS_ID_LENGTH),
    epochMs: parseGlideDateTime(timestamp),
  };
}
