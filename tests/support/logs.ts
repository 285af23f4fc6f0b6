/**
 * The log lines a piece of code writes, for tests that check what is logged (and that no secret is).
 *
 * ```ts
 * const { result, lines } = await capturingLogs(() => client.list("incident", { limit: 1 }));
 * assert(lines.some((l) => l.includes("retrying")));
 * ```
 */
import { setLogSink } from "../../src/observability/log.ts";

/** Collects every log line written while `fn` runs (already redacted by the logger); then logs go to stderr again. */
export async function capturingLogs<T>(fn: () => Promise<T> | T): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  try {
    return { result: await fn(), lines };
  } finally {
    setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
  }
}
