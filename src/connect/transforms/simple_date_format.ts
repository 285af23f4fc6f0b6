/**
 * Java's `java.text.SimpleDateFormat` (US locale, UTC time zone, lenient parsing), which TimestampConverter's
 * `format`, TimestampRouter's `timestamp.format` and Cast's date-to-string use. Patterns are the Java ones:
 * `yyyy-MM-dd HH:mm:ss.SSS`, `yyyyMMdd`, `EEE, d MMM yyyy HH:mm:ss Z`, quoted literals `'T'`, `''` for a quote.
 *
 * Pattern letters: G y Y M L w W D d F E u a H k K h m s S z Z X. Any other ASCII letter is rejected, as Java
 * rejects it (`Illegal pattern character 'x'`).
 *
 * Parsing follows Java's lenient mode: numeric fields take as many digits as are present unless the next pattern
 * field is numeric too (then exactly the pattern's width, so `yyyyMMdd` reads `20240131`); out-of-range values
 * roll over (month 13 is January of the next year); text after the end of the pattern is ignored; a two-digit
 * `yy` year lands within 80 years before and 20 years after now; day-of-week names are checked but not used.
 */

type Token = { kind: "literal"; text: string } | { kind: "field"; letter: string; count: number };

const PATTERN_LETTERS = new Set("GyYMLwWDdFEuaHkKhmsSzZX");
const NUMERIC_LETTERS = new Set("yYMLwWDdFuHkKhmsS");
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MILLIS_PER_DAY = 86_400_000;

/** Thrown for an invalid pattern (Java's `IllegalArgumentException`). */
export class DatePatternError extends Error {
  override name = "IllegalArgumentException";
}

/** Thrown when text does not match the pattern (Java's `ParseException`). */
export class DateParseError extends Error {
  override name = "ParseException";
}

function compile(pattern: string): Token[] {
  const tokens: Token[] = [];
  const literal = (text: string) => {
    const last = tokens[tokens.length - 1];
    if (last?.kind === "literal") last.text += text;
    else tokens.push({ kind: "literal", text });
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        literal("'");
        i += 2;
        continue;
      }
      let text = "";
      i++;
      while (true) {
        if (i >= pattern.length) throw new DatePatternError("Unterminated quote");
        if (pattern[i] === "'") {
          if (pattern[i + 1] === "'") {
            text += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += pattern[i++];
      }
      literal(text);
    } else if (/[A-Za-z]/.test(c)) {
      if (!PATTERN_LETTERS.has(c)) throw new DatePatternError(`Illegal pattern character '${c}'`);
      let count = 1;
      while (pattern[i + count] === c) count++;
      if (c === "X" && count > 3) throw new DatePatternError(`invalid ISO 8601 format: length=${count}`);
      tokens.push({ kind: "field", letter: c, count });
      i += count;
    } else {
      literal(c);
      i++;
    }
  }
  return tokens;
}

function pad(n: number, width: number): string {
  const digits = String(Math.abs(n)).padStart(width, "0");
  return n < 0 ? `-${digits}` : digits;
}

/** Day of year (1-based) of a UTC date. */
function dayOfYear(d: Date): number {
  return Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / MILLIS_PER_DAY) + 1;
}

/** US week fields (weeks start on Sunday; week 1 contains January 1st). */
function usWeek(d: Date): { weekYear: number; week: number } {
  const year = d.getUTCFullYear();
  const saturday = new Date(d.getTime() + (6 - d.getUTCDay()) * MILLIS_PER_DAY);
  if (saturday.getUTCFullYear() > year) return { weekYear: year + 1, week: 1 };
  const jan1Weekday = new Date(Date.UTC(year, 0, 1)).getUTCDay();
  return { weekYear: year, week: Math.floor((dayOfYear(d) - 1 + jan1Weekday) / 7) + 1 };
}

function formatYear(year: number, count: number): string {
  return count === 2 ? pad(year % 100, 2) : pad(year, count);
}

function formatField(d: Date, letter: string, count: number): string {
  const year = d.getUTCFullYear();
  const hour = d.getUTCHours();
  switch (letter) {
    case "G":
      return year > 0 ? "AD" : "BC";
    case "y":
      return formatYear(year > 0 ? year : 1 - year, count);
    case "Y":
      return formatYear(usWeek(d).weekYear, count);
    case "M":
    case "L": {
      const month = d.getUTCMonth();
      if (count >= 4) return MONTHS[month];
      if (count === 3) return MONTHS[month].slice(0, 3);
      return pad(month + 1, count);
    }
    case "w":
      return pad(usWeek(d).week, count);
    case "W": {
      const firstWeekday = new Date(Date.UTC(year, d.getUTCMonth(), 1)).getUTCDay();
      return pad(Math.floor((d.getUTCDate() - 1 + firstWeekday) / 7) + 1, count);
    }
    case "D":
      return pad(dayOfYear(d), count);
    case "d":
      return pad(d.getUTCDate(), count);
    case "F":
      return pad(Math.floor((d.getUTCDate() - 1) / 7) + 1, count);
    case "E":
      return count >= 4 ? DAYS[d.getUTCDay()] : DAYS[d.getUTCDay()].slice(0, 3);
    case "u":
      return pad(d.getUTCDay() === 0 ? 7 : d.getUTCDay(), count);
    case "a":
      return hour < 12 ? "AM" : "PM";
    case "H":
      return pad(hour, count);
    case "k":
      return pad(hour === 0 ? 24 : hour, count);
    case "K":
      return pad(hour % 12, count);
    case "h":
      return pad(hour % 12 === 0 ? 12 : hour % 12, count);
    case "m":
      return pad(d.getUTCMinutes(), count);
    case "s":
      return pad(d.getUTCSeconds(), count);
    case "S":
      return pad(d.getUTCMilliseconds(), count);
    case "z":
      return count >= 4 ? "Coordinated Universal Time" : "UTC";
    case "Z":
      return "+0000";
    case "X":
      return "Z";
  }
  throw new DatePatternError(`Illegal pattern character '${letter}'`);
}

/** Parsed field values, combined leniently into an instant at the end. */
interface ParsedFields {
  year?: number;
  bc?: boolean;
  month?: number;
  day?: number;
  dayOfYear?: number;
  hour24?: number;
  hour12?: number;
  pm?: boolean;
  minute?: number;
  second?: number;
  millis?: number;
  offsetMinutes?: number;
}

/** Case-insensitive match of the longest candidate at `pos`; returns its index and length. */
function matchText(text: string, pos: number, candidates: readonly string[]): [number, number] | null {
  let best: [number, number] | null = null;
  const rest = text.slice(pos).toLowerCase();
  candidates.forEach((candidate, index) => {
    if (rest.startsWith(candidate.toLowerCase()) && (best === null || candidate.length > best[1])) {
      best = [index, candidate.length];
    }
  });
  return best;
}

function parseZone(text: string, pos: number): [number, number] | null {
  const rest = text.slice(pos);
  let m = /^(?:UTC|GMT)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?/i.exec(rest);
  if (m === null) m = /^([+-])(\d{2})(?::?(\d{2}))?/.exec(rest);
  if (m !== null) {
    const sign = m[1] === "-" ? -1 : 1;
    return [sign * (Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)), m[0].length];
  }
  if (rest[0] === "Z" || rest[0] === "z") return [0, 1];
  return null;
}

/** Java's two-digit year rule: the year within [now - 80 years, now + 20 years). */
function expandTwoDigitYear(twoDigits: number): number {
  const startYear = new Date().getUTCFullYear() - 80;
  const century = Math.floor(startYear / 100) * 100;
  const candidate = century + twoDigits;
  return candidate < startYear ? candidate + 100 : candidate;
}

export class SimpleDateFormat {
  readonly #tokens: Token[];

  /** Throws `DatePatternError` for a pattern Java would reject. */
  constructor(readonly pattern: string) {
    this.#tokens = compile(pattern);
  }

  /** Java's `toPattern()`. */
  toPattern(): string {
    return this.pattern;
  }

  format(date: Date): string {
    return this.#tokens.map((t) => t.kind === "literal" ? t.text : formatField(date, t.letter, t.count)).join(
      "",
    );
  }

  /** Java's `parse(String)`: throws `DateParseError` when the text does not match from its start. */
  parse(text: string): Date {
    const fields: ParsedFields = {};
    let pos = 0;
    const fail = (): never => {
      throw new DateParseError(`Unparseable date: "${text}"`);
    };
    this.#tokens.forEach((token, index) => {
      if (token.kind === "literal") {
        if (!text.startsWith(token.text, pos)) fail();
        pos += token.text.length;
        return;
      }
      const { letter, count } = token;
      const next = this.#tokens[index + 1];
      const abutting = next?.kind === "field" && NUMERIC_LETTERS.has(next.letter) &&
        !((next.letter === "M" || next.letter === "L") && next.count >= 3);
      const textual = ((letter === "M" || letter === "L") && count >= 3) || !NUMERIC_LETTERS.has(letter);
      if (!textual) {
        const digits = abutting ? new RegExp(`^\\d{1,${count}}`) : /^\d+/;
        const m = digits.exec(text.slice(pos));
        if (m === null) fail();
        pos += m![0].length;
        this.#assignNumber(fields, letter, count, m![0]);
        return;
      }
      pos += this.#parseText(fields, letter, text, pos, fail);
    });
    return this.#combine(fields);
  }

  #assignNumber(fields: ParsedFields, letter: string, count: number, digits: string): void {
    const n = Number(digits);
    switch (letter) {
      case "y":
      case "Y":
        fields.year = count <= 2 && digits.length === 2 ? expandTwoDigitYear(n) : n;
        return;
      case "M":
      case "L":
        fields.month = n - 1;
        return;
      case "d":
        fields.day = n;
        return;
      case "D":
        fields.dayOfYear = n;
        return;
      case "H":
        fields.hour24 = n;
        return;
      case "k":
        fields.hour24 = n === 24 ? 0 : n;
        return;
      case "K":
        fields.hour12 = n;
        return;
      case "h":
        fields.hour12 = n === 12 ? 0 : n;
        return;
      case "m":
        fields.minute = n;
        return;
      case "s":
        fields.second = n;
        return;
      case "S":
        fields.millis = n;
        return;
        // w, W, F, u: read but not used to build the date (as with Java when a day of month is present).
    }
  }

  #parseText(fields: ParsedFields, letter: string, text: string, pos: number, fail: () => never): number {
    switch (letter) {
      case "M":
      case "L": {
        const m = matchText(text, pos, [...MONTHS, ...MONTHS.map((name) => name.slice(0, 3))]) ?? fail();
        fields.month = m[0] % 12;
        return m[1];
      }
      case "E": {
        const m = matchText(text, pos, [...DAYS, ...DAYS.map((name) => name.slice(0, 3))]) ?? fail();
        return m[1];
      }
      case "a": {
        const m = matchText(text, pos, ["AM", "PM"]) ?? fail();
        fields.pm = m[0] === 1;
        return m[1];
      }
      case "G": {
        const m = matchText(text, pos, ["AD", "BC"]) ?? fail();
        fields.bc = m[0] === 1;
        return m[1];
      }
      default: {
        const zone = parseZone(text, pos) ?? fail();
        fields.offsetMinutes = zone[0];
        return zone[1];
      }
    }
  }

  #combine(f: ParsedFields): Date {
    const year = f.bc ? 1 - (f.year ?? 1970) : f.year ?? 1970;
    const hour = f.hour24 ?? (f.hour12 !== undefined ? f.hour12 + (f.pm ? 12 : 0) : 0);
    const date = new Date(0);
    // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999; overflowing fields roll over.
    if (f.day === undefined && f.dayOfYear !== undefined) date.setUTCFullYear(year, 0, f.dayOfYear);
    else date.setUTCFullYear(year, f.month ?? 0, f.day ?? 1);
    date.setUTCHours(hour, f.minute ?? 0, f.second ?? 0, f.millis ?? 0);
    return new Date(date.getTime() - (f.offsetMinutes ?? 0) * 60_000);
  }
}
