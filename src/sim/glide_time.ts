/**
 * glide_date_time values: `yyyy-MM-dd HH:mm:ss` in UTC, stored here as whole epoch seconds.
 * Display values are rendered in a user's IANA time zone and date format.
 */

const GLIDE_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/** Epoch seconds of a UTC `yyyy-MM-dd HH:mm:ss` (or `yyyy-MM-dd`) string; NaN when it is not one. */
export function parseGlideDateTime(text: string): number {
  const m = GLIDE_DATE_TIME.exec(text);
  if (!m) return NaN;
  const [y, mo, d, h = "0", mi = "0", s = "0"] = m.slice(1).map((v) => v ?? "0");
  const month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return NaN;
  const ms = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  return Number.isNaN(ms) ? NaN : ms / 1000;
}

function pad2(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

// Formatting is on the hot path of every page (about ten date-times per incident row), so the last
// result per day is cached and only the time of day is rebuilt.
let cachedDay = NaN;
let cachedDayText = "";

/** `yyyy-MM-dd HH:mm:ss` in UTC for epoch seconds; "" for NaN. */
export function formatGlideDateTime(epochSeconds: number): string {
  if (Number.isNaN(epochSeconds)) return "";
  const day = Math.floor(epochSeconds / 86400);
  if (day !== cachedDay) {
    const d = new Date(day * 86400000);
    cachedDay = day;
    cachedDayText = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} `;
  }
  const secs = epochSeconds - day * 86400;
  const h = Math.floor(secs / 3600), m = Math.floor((secs % 3600) / 60), s = secs % 60;
  return cachedDayText + pad2(h) + ":" + pad2(m) + ":" + pad2(s);
}

/** `yyyy-MM-dd` in UTC for epoch seconds; "" for NaN. */
export function formatGlideDate(epochSeconds: number): string {
  return formatGlideDateTime(epochSeconds).slice(0, 10);
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = zoneFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    zoneFormatters.set(timeZone, f);
  }
  return f;
}

/** Wall-clock parts of an instant in a time zone. */
export function zonedParts(
  epochSeconds: number,
  timeZone: string,
): Record<"y" | "M" | "d" | "H" | "m" | "s", string> {
  if (timeZone === "UTC" || timeZone === "GMT") {
    const t = formatGlideDateTime(epochSeconds);
    return {
      y: t.slice(0, 4),
      M: t.slice(5, 7),
      d: t.slice(8, 10),
      H: t.slice(11, 13),
      m: t.slice(14, 16),
      s: t.slice(17, 19),
    };
  }
  const parts: Record<string, string> = {};
  for (const p of zoneFormatter(timeZone).formatToParts(epochSeconds * 1000)) parts[p.type] = p.value;
  return { y: parts.year, M: parts.month, d: parts.day, H: parts.hour, m: parts.minute, s: parts.second };
}

/**
 * A date-time as the user sees it: in their time zone, with their date format
 * (`yyyy-MM-dd`, `MM-dd-yyyy`, `dd/MM/yyyy`, … — the tokens yyyy, MM and dd are substituted).
 */
export function formatDisplayDateTime(epochSeconds: number, timeZone: string, dateFormat: string): string {
  if (Number.isNaN(epochSeconds)) return "";
  const p = zonedParts(epochSeconds, timeZone);
  return formatDate(p, dateFormat) + ` ${p.H}:${p.m}:${p.s}`;
}

export function formatDisplayDate(epochSeconds: number, timeZone: string, dateFormat: string): string {
  if (Number.isNaN(epochSeconds)) return "";
  return formatDate(zonedParts(epochSeconds, timeZone), dateFormat);
}

function formatDate(p: { y: string; M: string; d: string }, dateFormat: string): string {
  return dateFormat.replace("yyyy", p.y).replace("MM", p.M).replace("dd", p.d);
}

/**
 * Epoch seconds of a wall-clock time in a time zone (inverse of zonedParts), used by
 * `javascript:gs.dateGenerate(...)` which interprets its input in the user's zone.
 */
export function zonedToEpoch(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  timeZone: string,
): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
  if (timeZone === "UTC" || timeZone === "GMT") return guess;
  // Two refinement steps settle on the right offset except inside a DST gap.
  let t = guess;
  for (let i = 0; i < 2; i++) {
    const p = zonedParts(t, timeZone);
    const seen = Date.UTC(+p.y, +p.M - 1, +p.d, +p.H, +p.m, +p.s) / 1000;
    t += guess - seen;
  }
  return t;
}

/** The HTTP Date header value (IMF-fixdate) for epoch milliseconds. */
export function httpDate(epochMs: number): string {
  return new Date(epochMs).toUTCString();
}

/** Human duration the way the instance displays glide_duration values ("2 Minutes 17 Seconds"). */
export function formatDuration(seconds: number): string {
  if (Number.isNaN(seconds)) return "";
  const units: Array<[number, string]> = [[86400, "Day"], [3600, "Hour"], [60, "Minute"], [1, "Second"]];
  const out: string[] = [];
  let rest = Math.max(0, Math.round(seconds));
  for (const [size, name] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) out.push(`${n} ${name}${n === 1 ? "" : "s"}`);
  }
  return out.length ? out.join(" ") : "0 Seconds";
}
