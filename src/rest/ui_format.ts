/** Text for the status page: HTML escaping (every name and message is user input) and number formats. */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML element's content or a quoted attribute value. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? "–" : Math.round(n).toLocaleString("en");
}

export function perSecond(n: number | null | undefined): string {
  if (n === null || n === undefined) return "–";
  return n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString("en");
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "–";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** An ETA is an estimate, rounded to what it can promise: "≈ 40 s", "≈ 3 min", "≈ 2 h 10 min". */
export function eta(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "–";
  const s = Math.max(0, Math.round(seconds));
  const rounded = s < 60
    ? `${s} s`
    : s < 3600
    ? `${Math.round(s / 60)} min`
    : duration(Math.round(s / 60) * 60);
  return `≈ ${rounded} (estimate)`;
}

const SUMMARY_MAX_CHARS = 600;

/**
 * What a trace says before its stack: the message's lines up to the first stack frame or `Caused by:` (a
 * message such as "Connector configuration is invalid:" names the reason on its next line), cut at 600
 * characters; the whole trace stays in the REST API's status.
 */
export function traceSummary(trace: string): string {
  const lines: string[] = [];
  for (const line of trace.split("\n")) {
    if (/^\s+at /.test(line) || /^\s*Caused by:/.test(line)) break;
    if (line.trim() !== "") lines.push(line.trimEnd());
  }
  const text = lines.join("\n");
  return text.length > SUMMARY_MAX_CHARS ? `${text.slice(0, SUMMARY_MAX_CHARS - 1)}…` : text;
}
