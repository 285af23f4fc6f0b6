/**
 * deploy/tablesync.service as systemd reads it: `systemd-analyze verify` finds nothing to say (a misspelt key is
 * only a warning there, so its output must be empty), and `systemd-analyze security` keeps the hardening: every
 * check it still counts against the unit is one listed below with why it stays open. Dropping a hardening line adds
 * a check to that list and fails here. Needs systemd-analyze (Debian's systemd package); skipped without it.
 */
import { assertEquals } from "../support/assert.ts";

const UNIT = new URL("../../deploy/tablesync.service", import.meta.url).pathname;

/** What `systemd-analyze security` (systemd 252) still counts against the unit, and why each stays. */
const ACCEPTED_EXPOSURES = [
  "DeviceAllow=", // PrivateDevices=yes leaves /dev/rtc readable; nothing to gain
  "IPAddressDeny=", // the instance and Kafka may be anywhere: an allow-list is the deployer's to write
  "MemoryDenyWriteExecute=", // V8's JIT needs writable executable memory
  "PrivateMounts=",
  "PrivateNetwork=", // the daemon serves and calls over the network
  "PrivateUsers=",
  "ProcSubset=", // the runtime reads system-wide /proc files (meminfo), which ProcSubset=pid hides
  "ProtectProc=",
  "RestrictAddressFamilies=~AF_(INET|INET6)", // network again
  "RestrictAddressFamilies=~AF_UNIX", // the resolver may ask nscd or systemd-resolved over a local socket
  "RootDirectory=/RootImage=",
  "SystemCallFilter=~@clock", // no filter: untested under Deno's runtime, a wrong one kills the daemon at once
  "SystemCallFilter=~@cpu-emulation",
  "SystemCallFilter=~@debug",
  "SystemCallFilter=~@module",
  "SystemCallFilter=~@mount",
  "SystemCallFilter=~@obsolete",
  "SystemCallFilter=~@privileged",
  "SystemCallFilter=~@raw-io",
  "SystemCallFilter=~@reboot",
  "SystemCallFilter=~@resources",
  "SystemCallFilter=~@swap",
  "UMask=", // 0027: the state directory's group may read (an operator's backup)
];

function systemdAnalyze(): boolean {
  try {
    return new Deno.Command("systemd-analyze", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync()
      .success;
  } catch {
    return false;
  }
}

/** The unit with ExecStart and ExecStartPost pointing at a program that exists here (verify checks it is executable). */
async function unitHere(): Promise<string> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/tablesync.service`;
  const text = await Deno.readTextFile(UNIT);
  await Deno.writeTextFile(
    path,
    text.replaceAll(/^(ExecStart(?:Post)?)=\/usr\/local\/bin\/tablesync/gm, `$1=${Deno.execPath()}`),
  );
  return path;
}

async function analyze(...args: string[]) {
  const out = await new Deno.Command("systemd-analyze", { args, stdout: "piped", stderr: "piped" }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test({
  name: "systemd-analyze verify accepts the unit without a warning",
  ignore: !systemdAnalyze(),
  async fn() {
    const out = await analyze("verify", await unitHere());
    assertEquals(out.code, 0, out.stderr);
    assertEquals(out.stderr + out.stdout, "");
  },
});

Deno.test({
  name: "systemd-analyze security: the unit keeps its hardening",
  ignore: !systemdAnalyze(),
  async fn() {
    const out = await analyze("security", "--offline=true", "--no-pager", await unitHere());
    assertEquals(out.code, 0, out.stderr);
    const open = out.stdout.split("\n").filter((l) => l.startsWith("✗")).map((l) =>
      l.slice(2).split(/\s+/)[0]
    );
    assertEquals(open.sort(), [...ACCEPTED_EXPOSURES].sort(), out.stdout);
  },
});
