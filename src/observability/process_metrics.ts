/**
 * The process's own metrics for `GET /metrics`, under the names Prometheus' process collectors use: resident
 * memory, CPU time, start time and file descriptors (read from /proc on Linux; absent where it cannot be read),
 * plus the main thread's V8 heap. Task threads have heaps of their own; the resident memory covers them all.
 */
import process from "node:process";
import { MetricsRegistry } from "./metrics.ts";

export function processMetrics(): MetricsRegistry {
  const registry = new MetricsRegistry();
  const memory = Deno.memoryUsage();
  registry.set("process_resident_memory_bytes", {}, memory.rss);
  registry.set("tablesync_heap_used_bytes", {}, memory.heapUsed);
  registry.set("tablesync_heap_total_bytes", {}, memory.heapTotal);
  const cpu = process.cpuUsage();
  registry.increment("process_cpu_seconds_total", {}, (cpu.user + cpu.system) / 1e6);
  registry.set("process_start_time_seconds", {}, Math.round(performance.timeOrigin) / 1000);
  const fds = openFileDescriptors();
  if (fds !== null) registry.set("process_open_fds", {}, fds);
  const max = maxFileDescriptors();
  if (max !== null) registry.set("process_max_fds", {}, max);
  return registry;
}

function openFileDescriptors(): number | null {
  try {
    let count = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) count++;
    return count;
  } catch {
    return null; // not Linux, or no read permission
  }
}

function maxFileDescriptors(): number | null {
  try {
    const line = Deno.readTextFileSync("/proc/self/limits").split("\n").find((l) =>
      l.startsWith("Max open files")
    );
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}
