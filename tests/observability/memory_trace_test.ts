import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { startMemoryTraceFromEnv } from "../../src/observability/memory_trace.ts";

Deno.test("memory trace: off without TABLESYNC_MEMORY_TRACE_FILE", () => {
  Deno.env.delete("TABLESYNC_MEMORY_TRACE_FILE");
  startMemoryTraceFromEnv("off")();
});

Deno.test("memory trace: appends one line per sample with the thread's label, heap and RSS", async () => {
  const file = await Deno.makeTempFile();
  Deno.env.set("TABLESYNC_MEMORY_TRACE_FILE", file);
  Deno.env.set("TABLESYNC_MEMORY_TRACE_MS", "10");
  try {
    const stop = startMemoryTraceFromEnv("unit");
    await new Promise((r) => setTimeout(r, 100));
    stop();
    const lines = (await Deno.readTextFile(file)).trim().split("\n");
    assert(lines.length >= 2, `expected several samples, got ${lines.length}`);
    for (const line of lines) {
      assertMatch(line, /^\d+ unit heapUsed=[\d.]+ heapTotal=[\d.]+ external=[\d.]+ rss=[\d.]+$/);
    }
    const before = lines.length;
    await new Promise((r) => setTimeout(r, 50));
    assertEquals((await Deno.readTextFile(file)).trim().split("\n").length, before, "stopped means stopped");
  } finally {
    Deno.env.delete("TABLESYNC_MEMORY_TRACE_FILE");
    Deno.env.delete("TABLESYNC_MEMORY_TRACE_MS");
    await Deno.remove(file);
  }
});
