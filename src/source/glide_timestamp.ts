/**
 * The instance's date-time text, `yyyy-MM-dd HH:mm:ss` in UTC (glide_date_time's database value), to and from
 * epoch milliseconds. Parsing is by character codes, not a regular expression: it runs twice per row (cursor
 * and typed timestamps) on the hot path.
 */

const ZERO = 48;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Reads `count` ASCII digits at `at`; -1 when any is not a digit. */
function readDigits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Epoch milliseconds of midnight UTC of a calendar day, or NaN when the day does not exist. */
function utcDayMillis(year: number, month: number, day: number): number {
  if (year < 0 || month < 1 || month > 12 || day < 1) return NaN;
  const max = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (day > max) return NaN;
  return Date.UTC(year, month - 1, day);
}

/** Milliseconds since midnight of `HH:mm:ss` at `at`, or NaN. */
function parseTimeOfDayAt(text: string, at: number): number {
  if (text.charCodeAt(at + 2) !== 58 || text.charCodeAt(at + 5) !== 58) return NaN; // ':'
  const h = readDigits(text, at, 2), m = readDigits(text, at + 3, 2), s = readDigits(text, at + 6, 2);
  if (h < 0 || m < 0 || s < 0 || h > 23 || m > 59 || s > 59) return NaN;
  return ((h * 60 + m) * 60 + s) * 1000;
}

/** `yyyy-MM-dd` at `at` → epoch ms of midnight UTC, or NaN. */
function parseGlideDateAt(text: string, at: number): number {
  if (text.charCodeAt(at + 4) !== 45 || text.charCodeAt(at + 7) !== 45) return NaN; // '-'
  const y = readDigits(text, at, 4), mo = readDigits(text, at + 5, 2), d = readDigits(text, at + 8, 2);
  if (y < 0 || mo < 0 || d < 0) return NaN;
  return utcDayMillis(y, mo, d);
}

/** `yyyy-MM-dd` → epoch ms of midnight UTC, or NaN. */
export function parseGlideDate(text: string): number {
  return text.length === 10 ? parseGlideDateAt(text, 0) : NaN;
}

/** `yyyy-MM-dd HH:mm:ss` (UTC) → epoch ms, or NaN when the text is not exactly that shape or not a real instant. */
export function parseGlideDateTime(text: string): number {
  if (typeof text !== "string" || text.length !== 19) return NaN;
  return parseGlideDateTimeAt(text, 0);
}

/**
 * The 19 characters `yyyy-MM-dd HH:mm:ss` at `at` of a longer text (e.g. a dedup version key) → epoch ms, or NaN;
 * the caller checks that the text is long enough.
 */
export function parseGlideDateTimeAt(text: string, at: number): number {
  if (text.charCodeAt(at + 10) !== 32) return NaN;
  const day = parseGlideDateAt(text, at);
  if (Number.isNaN(day)) return NaN;
  const time = parseTimeOfDayAt(text, at + 11);
  return Number.isNaN(time) ? NaN : day + time;
}

/** `HH:mm:ss` → milliseconds since midnight, or NaN. */
export function parseGlideTime(text: string): number {
  return text.length === 8 ? parseTimeOfDayAt(text, 0) : NaN;
}

/** Epoch ms → `yyyy-MM-dd HH:mm:ss` in UTC (milliseconds dropped). */
export function formatGlideDateTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace("T", " ");
}
