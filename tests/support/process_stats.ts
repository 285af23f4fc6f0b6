/**
 * What a process has used, read from /proc: CPU seconds and resident memory. The fault tests and the benchmarks
 * report these figures (never assert them); one reader, so every figure counts the same way: all of a process's
 * threads, the daemon's task threads included.
 */

/** User + system CPU seconds a process has used (all its threads). */
export function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // Fields after the command name (which is in parentheses and may hold spaces): utime is the 14th, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory now (VmRSS) of a process, bytes. */
export function currentRss(pid: number): number {
  return statusKiB(pid, "VmRSS") * 1024;
}

/** Peak resident memory (VmHWM) of a process, bytes. */
export function peakRss(pid: number): number {
  return statusKiB(pid, "VmHWM") * 1024;
}

function statusKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}
