/**
 * A watchdog that stops a detached child once its owner process is gone, however the owner ended (kill -9
 * included): a small shell loop in its own session polls both pids once a second; when the owner has exited it
 * sends the child SIGTERM (a graceful stop), SIGKILL after 15 s, and removes a directory if given. Before that it
 * waits (30 s at most) for the processes whose pids are listed in the directory's `clients` file
 * (`addWatchdogClient`): a broker outlives the daemon that must commit its offsets to it on a graceful stop.
 *
 * Used by the Kafka broker launcher and the demo's daemon: both run detached (their own session, so a terminal's
 * Ctrl-C reaches only the owner, which stops them itself) and must never outlive the owner.
 */

/**
 * $1 owner, $2 child, $3 directory to remove (may be empty). A zombie counts as gone: an owner killed while its
 * own parent has not reaped it yet still answers `kill -0`, so /proc's state is read where there is one.
 */
const WATCHDOG =
  `alive() { kill -0 "$1" 2>/dev/null || return 1; s=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1); [ "$s" != Z ]; }
while alive "$1" && alive "$2"; do sleep 1; done
if [ -n "$3" ] && [ -f "$3/clients" ]; then
  for i in $(seq 1 60); do
    busy=; for c in $(cat "$3/clients"); do alive "$c" && busy=1; done
    [ -z "$busy" ] && break; sleep 0.5
  done
fi
kill "$2" 2>/dev/null
for i in $(seq 1 30); do alive "$2" || break; sleep 0.5; done
kill -9 "$2" 2>/dev/null
[ -z "$3" ] || rm -rf "$3"`;

/**
 * Starts the watchdog and returns once it runs on its own (no child-process resource is left open, so a test that
 * calls this holds nothing across tests).
 */
export async function watchOwner(ownerPid: number, childPid: number, removeDir = ""): Promise<void> {
  const script = `setsid bash -c ${shellQuote(WATCHDOG)} watchdog ${ownerPid} ${childPid} ${
    shellQuote(removeDir)
  } </dev/null >/dev/null 2>&1 &`;
  const started = await new Deno.Command("bash", { args: ["-c", script], stdout: "null" }).output();
  if (!started.success) throw new Error(`the watchdog of pid ${childPid} did not start`);
}

/**
 * Makes the watchdog of the child whose directory is `dir` wait for `pid` to exit (30 s at most) before stopping
 * that child once the owner is gone.
 */
export async function addWatchdogClient(dir: string, pid: number): Promise<void> {
  await Deno.writeTextFile(`${dir}/clients`, `${pid}\n`, { append: true });
}

/** Whether `pid` runs (Linux's /proc): a zombie, exited but not yet reaped, does not. */
export function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

export const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
