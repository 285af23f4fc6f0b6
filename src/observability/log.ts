/**
 * Structured logging (pino) with the redaction layer applied to every line, named loggers whose levels change at
 * runtime, and two output formats (`log.format`: `json` lines, or `text` for people: log_text.ts).
 *
 * Named loggers: `logger(name)` returns the logger of one area of the code (`rest`, `herder`, `task`, ...; see
 * KNOWN_LOGGERS). Names are hierarchical on dots, as in log4j: a level set for `task` also applies to
 * `task.x`. The root logger (`root`) holds the level of every logger without one of its own; it starts at the
 * worker's `log.level`. `setLoggerLevel` is what Kafka Connect's `PUT /admin/loggers/<name>` does; a task thread
 * receives the same settings (`logSettings`/`applyLogSettings`) when it starts and whenever they change.
 *
 * Every line is redacted as a whole after formatting, so a secret cannot slip through a field name, an error
 * stack or a nested object; a `text` line is made from the redacted JSON line and redacted once more.
 */
import pino from "pino";
import { redact } from "./redact.ts";
import { textLine } from "./log_text.ts";

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";
export const LOG_LEVELS: readonly LogLevel[] = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];
export type LogFormat = "json" | "text";
export const LOG_FORMATS: readonly LogFormat[] = ["json", "text"];

/** The root logger's name, as in Kafka Connect's /admin/loggers. */
export const ROOT_LOGGER = "root";

/**
 * The areas that log: each is the name of a logger (`logger("<name>")`). Listed so `GET /admin/loggers` can show
 * loggers that exist only inside task threads (`task`, `source`, `sink`, `instance`, ...) too.
 */
export const KNOWN_LOGGERS: readonly string[] = [
  "daemon",
  "group",
  "herder",
  "instance",
  "kafka",
  "offsets",
  "registry",
  "rest",
  "runtime",
  "sim",
  "task",
  "tls",
];

/** What a task thread needs to log as the main thread does: the format, the root level, explicit levels. */
export interface LogSettings {
  format: LogFormat;
  root: LogLevel;
  loggers: Record<string, LogLevel>;
}

/** Where lines go; tests replace it to capture output. Defaults to stderr so stdout stays for command output. */
let sink: (line: string) => void = (line) => {
  Deno.stderr.writeSync(new TextEncoder().encode(line));
};
let format: LogFormat = "json";

export function setLogSink(write: (line: string) => void): void {
  sink = write;
}

export function setLogFormat(next: LogFormat): void {
  format = next;
}

const root = pino(
  {
    level: envLevel() ?? "info",
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  },
  // A text line is made from the redacted JSON line (so both formats hide exactly the same), then redacted again
  // for any credential shape the reformatting spells out.
  { write: (line: string) => sink(format === "text" ? redact(textLine(redact(line))) : redact(line)) },
);

export type Logger = pino.Logger;

/** Levels set explicitly per logger name (absent: the nearest ancestor's, else the root's). */
const explicit = new Map<string, LogLevel>();
/** When each level was last changed at runtime (Connect's `last_modified`). */
const modifiedAt = new Map<string, number>();
/** The live loggers of each name, so a level change reaches loggers created before it. */
const live = new Map<string, Set<WeakRef<Logger>>>();

export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  const child = root.child({ component, ...bindings });
  let refs = live.get(component);
  if (!refs) live.set(component, refs = new Set());
  refs.add(new WeakRef(child));
  if (explicit.size > 0) child.level = levelOf(component);
  return child;
}

/** The root level (the worker's `log.level`); loggers with a level of their own keep it. */
export function setLogLevel(level: LogLevel): void {
  root.level = level;
  applyLevels();
}

export function isRootLogger(name: string): boolean {
  return name === "" || name.toLowerCase() === ROOT_LOGGER;
}

/** The level a logger logs at: its own, else its nearest ancestor's, else the root's. */
export function levelOf(name: string): LogLevel {
  if (isRootLogger(name)) return root.level as LogLevel;
  for (let n = name; n !== ""; n = n.includes(".") ? n.slice(0, n.lastIndexOf(".")) : "") {
    const level = explicit.get(n);
    if (level) return level;
  }
  return root.level as LogLevel;
}

/** Every logger name this process knows: root, the known areas, those created here and those given a level. */
export function loggerNames(): string[] {
  return [...new Set([ROOT_LOGGER, ...KNOWN_LOGGERS, ...live.keys(), ...explicit.keys()])].sort();
}

export function lastModified(name: string): number | null {
  return modifiedAt.get(isRootLogger(name) ? ROOT_LOGGER : name) ?? null;
}

/**
 * Sets the level of a logger and of every logger under it (Connect's PUT /admin/loggers/<name>); `root` sets every
 * logger. Returns, as Connect does, every logger the request covered, sorted (those already at the level too); only
 * those whose level changed get a new `last_modified`.
 */
export function setLoggerLevel(name: string, level: LogLevel, now = Date.now()): string[] {
  const names = loggerNames();
  const before = new Map(names.map((n) => [n, levelOf(n)]));
  if (isRootLogger(name)) {
    explicit.clear();
    root.level = level;
  } else {
    for (const n of [...names, name]) {
      if (n === name || n.startsWith(`${name}.`)) explicit.set(n, level);
    }
  }
  applyLevels();
  const covered = loggerNames().filter((n) => isRootLogger(name) || n === name || n.startsWith(`${name}.`));
  for (const n of covered) if (before.get(n) !== levelOf(n)) modifiedAt.set(n, now);
  return covered;
}

/** The settings a task thread starts with (and receives again when they change). */
export function logSettings(): LogSettings {
  return { format, root: root.level as LogLevel, loggers: Object.fromEntries(explicit) };
}

/** In a task thread: log as the main thread does. */
export function applyLogSettings(settings: LogSettings): void {
  format = settings.format;
  explicit.clear();
  for (const [name, level] of Object.entries(settings.loggers)) explicit.set(name, level);
  root.level = settings.root;
  applyLevels();
}

/** Gives every live logger its effective level (a pino child follows the root only until it has its own). */
function applyLevels(): void {
  for (const [name, refs] of live) {
    for (const ref of refs) {
      const child = ref.deref();
      if (child) child.level = levelOf(name);
      else refs.delete(ref);
    }
  }
}

function envLevel(): LogLevel | undefined {
  try {
    return Deno.env.get("TABLESYNC_LOG_LEVEL") as LogLevel | undefined;
  } catch {
    return undefined; // no env permission
  }
}
