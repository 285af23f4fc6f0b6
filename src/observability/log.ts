/**
 * Structured JSON-lines logging (pino) with the redaction layer applied to every line.
 *
 * Use `logger(component)` for a child logger; `setLogLevel` follows the worker's `log.level`.
 * Every line is redacted as a whole after serialisation, so a secret cannot slip through a field name,
 * an error stack or a nested object.
 */
import pino from "pino";
import { redact } from "./redact.ts";

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";
export const LOG_LEVELS: readonly LogLevel[] = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/** Where lines go; tests replace it to capture output. Defaults to stderr so stdout stays for command output. */
let sink: (line: string) => void = (line) => {
  Deno.stderr.writeSync(new TextEncoder().encode(line));
};

export function setLogSink(write: (line: string) => void): void {
  sink = write;
}

const root = pino(
  {
    level: Deno.env.get("TABLESYNC_LOG_LEVEL") ?? "info",
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  },
  { write: (line: string) => sink(redact(line)) },
);

export type Logger = pino.Logger;

export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return root.child({ component, ...bindings });
}

export function setLogLevel(level: LogLevel): void {
  root.level = level;
}
