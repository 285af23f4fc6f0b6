/**
 * Opt-in V8 CPU profiles for finding where a thread spends its time: with `TABLESYNC_CPU_PROFILE_DIR` set, each
 * thread that calls `startCpuProfileFromEnv` samples itself for `TABLESYNC_CPU_PROFILE_SECONDS` (default 30) and
 * writes `<dir>/<label>-<pid>-<time>.cpuprofile` (open it in Chrome DevTools or summarise it with
 * bench/support/profile_summary.ts). Off by default: it costs nothing unless the variable is set.
 */
import { Session } from "node:inspector";

export function startCpuProfileFromEnv(label: string): void {
  let dir: string | undefined;
  try {
    dir = Deno.env.get("TABLESYNC_CPU_PROFILE_DIR");
  } catch {
    return; // no env permission: profiling stays off
  }
  if (!dir) return;
  const seconds = Number(Deno.env.get("TABLESYNC_CPU_PROFILE_SECONDS") ?? 30);
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<any>((resolve, reject) =>
      session.post(method, (error: Error | null, result: unknown) => error ? reject(error) : resolve(result))
    );
  void (async () => {
    await post("Profiler.enable");
    await post("Profiler.start");
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, seconds * 1000);
      // A profile must never keep a thread alive.
      Deno.unrefTimer(timer as unknown as number);
    });
    const { profile } = await post("Profiler.stop");
    await Deno.writeTextFile(`${dir}/${label}-${Deno.pid}-${Date.now()}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  })().catch(() => {});
}
