/**
 * `log.format=text`: one JSON log line turned into a line for people,
 * `2026-11-27T15:00:00.000Z INFO [connector=x task=0] message logger=task key=value ...`.
 * The connector and task (when the line has them) go in brackets; the logger's name and the other fields follow
 * the message as key=value, values JSON-quoted when they hold spaces, quotes or `=`. An error's stack, and any
 * field of several lines (a failed task's `trace`), follow on indented lines, as Java loggers print a stack.
 */

const CONTEXT = ["connector", "task"];
const SKIP = new Set(["time", "level", "msg", "component", ...CONTEXT]);
const INDENT = "\n    ";

export function textLine(jsonLine: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine);
  } catch {
    return jsonLine; // not ours: pass it on unchanged
  }
  const parts = [String(entry.time ?? new Date().toISOString()), String(entry.level ?? "info").toUpperCase()];
  const context = CONTEXT.filter((k) => entry[k] !== undefined).map((k) => `${k}=${scalar(entry[k])}`);
  if (context.length > 0) parts.push(`[${context.join(" ")}]`);
  if (entry.msg !== undefined) parts.push(String(entry.msg));
  if (entry.component !== undefined) parts.push(`logger=${scalar(entry.component)}`);
  let blocks = "";
  for (const [key, value] of Object.entries(entry)) {
    if (SKIP.has(key)) continue;
    if (key === "err" && typeof value === "object" && value !== null) {
      const err = value as { message?: unknown; stack?: unknown };
      parts.push(`err=${scalar(String(err.message ?? ""))}`);
      if (typeof err.stack === "string") blocks += indented(err.stack);
      continue;
    }
    if (typeof value === "string" && value.includes("\n")) {
      blocks += indented(`${key}: ${value}`);
      continue;
    }
    parts.push(`${key}=${scalar(value)}`);
  }
  return `${parts.join(" ")}${blocks}\n`;
}

/** Each line of `text` on a line of its own, indented under the log line. */
function indented(text: string): string {
  return text.split("\n").map((l) => `${INDENT}${l.trim()}`).join("");
}

function scalar(value: unknown): string {
  if (typeof value !== "string") return JSON.stringify(value) ?? String(value);
  return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
}
