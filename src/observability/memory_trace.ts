/**
 * Opt-in memory trace for finding which thread holds memory: with `TABLESYNC_MEMORY_TRACE_FILE` set, each thread
 * that calls `startMemoryTraceFromEnv` appends one line every `TABLESYNC_MEMORY_TRACE_MS` (default 250) to that
 * file (returns a stopper): time, label, V8 heap used / total, external (ArrayBuffers) and the process's RSS, in MB. Each isolate
 * reports its own heap; RSS is the process's. Started with `--v8-flags=--expose-gc`, each sample first collects
 * garbage, so it shows what is live rather than what V8 has not collected yet. Off by default: it costs nothing
 * unless the variable is set.
 */
export function startMemoryTraceFromEnv(label: string): () => void {
  let file: string | undefined;
  try {
    file = Deno.env.get("TABLESYNC_MEMORY_TRACE_FILE");
  } catch {
    return () => {}; // no env permission: tracing stays off
  }
  if (!file) return () => {};
  const every = Number(Deno.env.get("TABLESYNC_MEMORY_TRACE_MS") ?? 250);
  const mb = (n: number) => (n / 1048576).toFixed(1);
  const encoder = new TextEncoder();
  const timer = setInterval(() => {
    (globalThis as { gc?: () => void }).gc?.();
    const m = Deno.memoryUsage();
    const line = `${Date.now()} ${label} heapUsed=${mb(m.heapUsed)} heapTotal=${mb(m.heapTotal)} ` +
      `external=${mb(m.external)} rss=${mb(m.rss)}\n`;
    try {
      Deno.writeFileSync(file!, encoder.encode(line), { append: true });
    } catch { /* a trace never fails a thread */ }
  }, every);
  // A trace must never keep a thread alive.
  Deno.unrefTimer(timer as unknown as number);
  return () => clearInterval(timer);
}
