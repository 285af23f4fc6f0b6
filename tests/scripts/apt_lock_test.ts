/**
 * scripts/bootstrap's apt-get (scripts/apt_get_waiting) waits for another apt or dpkg run's lock instead of failing,
 * as on a fresh machine whose unattended upgrades hold it. The lock is held as apt and dpkg hold theirs: an fcntl
 * write lock (flock(1) takes a different kind of lock, which apt never sees), by a child process, so it is released
 * whatever happens to the test. The apt-get run installs nothing (`install` without packages) but takes the lock
 * like any install. Needs root and apt: elsewhere (a developer's laptop, macOS) the test is skipped.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { readLines } from "../support/read_lines.ts";

const APT_GET_WAITING = new URL("../../scripts/apt_get_waiting", import.meta.url).pathname;
const DPKG_LOCK = "/var/lib/dpkg/lock-frontend";

/** A child that takes an fcntl write lock on `path` (F_SETLKW through libc), says "locked", and holds it until killed. */
const HOLDER = `
const libc = Deno.dlopen("libc.so.6", {
  open: { parameters: ["buffer", "i32"], result: "i32" },
  fcntl: { parameters: ["i32", "i32", "buffer"], result: "i32" },
});
const fd = libc.symbols.open(new TextEncoder().encode(Deno.args[0] + "\\0"), 2 /* O_RDWR */);
const lock = new Uint8Array(32); // struct flock: l_type F_WRLCK, SEEK_SET, the whole file
new DataView(lock.buffer).setInt16(0, 1, true);
if (fd < 0 || libc.symbols.fcntl(fd, 7 /* F_SETLKW */, lock) !== 0) throw new Error("cannot lock " + Deno.args[0]);
console.log("locked");
setInterval(() => {}, 60_000);
`;

function aptAvailable(): boolean {
  try {
    return Deno.uid() === 0 && Deno.statSync(DPKG_LOCK).isFile && Deno.build.os === "linux";
  } catch {
    return false;
  }
}

async function holdLock(path: string): Promise<Deno.ChildProcess> {
  const holder = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", HOLDER, path],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = readLines(holder.stdout)[Symbol.asyncIterator]();
  assertEquals((await lines.next()).value, "locked");
  return holder;
}

Deno.test({
  name: "bootstrap's apt-get waits for another apt run's dpkg lock, says who holds it, then goes on",
  ignore: !aptAvailable(),
  async fn() {
    const holder = await holdLock(DPKG_LOCK);
    const apt = new Deno.Command("bash", {
      args: [APT_GET_WAITING, "install", "-y", "-qq"],
      env: { APT_LOCK_WAIT_SECONDS: "120" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr: string[] = [];
    let released = false;
    const reading = (async () => {
      for await (const line of readLines(apt.stderr)) {
        stderr.push(line);
        // It tried, found the lock held and waits: now the other run ends.
        if (line.includes("holds its lock") && !released) {
          released = true;
          holder.kill("SIGKILL");
        }
      }
    })();
    const [status, stdout] = await Promise.all([apt.status, new Response(apt.stdout).text(), reading]);
    if (!released) holder.kill("SIGKILL");
    await holder.status;
    await holder.stdout.cancel().catch(() => {});
    assert(released, `it never waited for the lock:\n${stderr.join("\n")}\n${stdout}`);
    assertEquals(status.code, 0, `${stderr.join("\n")}\n${stdout}`);
    assertEquals(stderr.length, 1, stderr.join("\n"));
    assertStringIncludes(stderr[0], `Could not get lock ${DPKG_LOCK}. It is held by process ${holder.pid}`);
  },
});

Deno.test({
  name: "bootstrap's apt-get gives up when the lock stays held past its limit, naming the lock",
  ignore: !aptAvailable(),
  async fn() {
    const holder = await holdLock(DPKG_LOCK);
    try {
      const out = await new Deno.Command("bash", {
        args: [APT_GET_WAITING, "install", "-y", "-qq"],
        env: { APT_LOCK_WAIT_SECONDS: "0" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 1, stderr);
      assertStringIncludes(stderr, `gave up after 0 s: Could not get lock ${DPKG_LOCK}`);
    } finally {
      holder.kill("SIGKILL");
      await holder.status;
      await holder.stdout.cancel().catch(() => {});
    }
  },
});
