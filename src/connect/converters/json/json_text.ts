/**
 * JSON text written the way Jackson writes it for Kafka's JsonConverter: no whitespace, strings escaping only
 * `"`, `\` and control characters (short forms \b \t \n \f \r, otherwise \u00XX with upper-case hex), other
 * non-ASCII characters of the Basic Multilingual Plane written as UTF-8, characters beyond it (emoji) as their two
 * UTF-16 surrogates escaped (`\uD83D\uDE00`: Jackson's UTF-8 generator does not combine surrogate pairs, as checked
 * against Connect's own JsonConverter in tests/conformance), and non-finite doubles quoted (`"NaN"`).
 */
import { formatJavaDouble, formatJavaFloat } from "../../java_format.ts";

const SHORT_ESCAPES: Record<number, string> = {
  0x08: "\\b",
  0x09: "\\t",
  0x0a: "\\n",
  0x0c: "\\f",
  0x0d: "\\r",
};
/** True when a string needs escaping: a quote, a backslash, a control character (U+0000–U+001F) or a surrogate. */
function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || isSurrogate(code)) return true;
  }
  return false;
}

function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}

const hex4 = (code: number) => code.toString(16).toUpperCase().padStart(4, "0");

/** A JSON string literal, escaped as Jackson does. */
export function jsonString(text: string): string {
  if (!needsEscape(text)) return `"${text}"`;
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += "\\\\";
    else if (code < 0x20) out += SHORT_ESCAPES[code] ?? `\\u${hex4(code)}`;
    else if (isSurrogate(code)) out += `\\u${hex4(code)}`;
    else out += text[i];
  }
  return out + '"';
}

function quotedIfNonFinite(text: string, value: number): string {
  return Number.isFinite(value) ? text : `"${text}"`;
}

/** A FLOAT64 as Jackson writes a Java double (`1.0`, `1.0E7`). */
export function jsonDouble(value: number): string {
  return quotedIfNonFinite(formatJavaDouble(value), value);
}

/** A FLOAT32 as Jackson writes a Java float (`12.34` for 12.34f). */
export function jsonFloat(value: number): string {
  return quotedIfNonFinite(formatJavaFloat(value), value);
}
