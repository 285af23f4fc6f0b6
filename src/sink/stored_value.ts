/**
 * Whether the value the instance answers with is the value a record sent, after the instance's normalisation:
 * a reference set by display value comes back as the referenced row's sys id, numbers and booleans as strings
 * in the instance's spelling (`1.0` → `1`, `1` → `true` for a boolean), date-times as `yyyy-MM-dd HH:mm:ss` in
 * UTC (ISO 8601 with `T`, a zone or milliseconds is converted), trailing spaces trimmed.
 */

const SYS_ID = /^[0-9a-f]{32}$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const INSTANCE_DATE_TIME = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

const TRUE = new Set(["true", "1", "yes"]);
const FALSE = new Set(["false", "0", "no", ""]);

/** The answer's value as text: a reference may come back as `{"value": …, "link": …}`. */
export function storedText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return "";
  if (typeof value === "object") {
    const inner = (value as { value?: unknown }).value;
    return typeof inner === "string" ? inner : JSON.stringify(value);
  }
  return String(value);
}

/** `type` is the dictionary's internal type when known (boolean, integer, glide_date_time, reference …). */
export function sameStoredValue(sent: string, stored: string, type?: string): boolean {
  if (sent === stored) return true;
  const a = sent.trim(), b = stored.trim();
  if (a === b) return true;
  if (b === "true" || b === "false") {
    const lower = a.toLowerCase();
    if (b === "true" ? TRUE.has(lower) : FALSE.has(lower)) return true;
  }
  if (NUMBER.test(a) && NUMBER.test(b) && Number(a) === Number(b)) return true;
  const dateA = instanceDateTime(a), dateB = instanceDateTime(b);
  if (dateA !== null && dateA === dateB) return true;
  // A reference (or a choice) set by its display value is stored as the row's sys id.
  if ((type === undefined || type === "reference") && a !== "" && !SYS_ID.test(a) && SYS_ID.test(b)) {
    return true;
  }
  return false;
}

/** A date or date-time as the instance stores it (UTC `yyyy-MM-dd HH:mm:ss`), or null when it is none. */
function instanceDateTime(text: string): string | null {
  if (INSTANCE_DATE_TIME.test(text)) return text.length === 10 ? `${text} 00:00:00` : text;
  if (!ISO_DATE_TIME.test(text)) return null;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned);
  if (Number.isNaN(ms)) return null;
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}
