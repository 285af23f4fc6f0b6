/**
 * A first run on a machine whose Deno cache is empty, as a new user's: scripts/bootstrap fetches the npm packages
 * of deno.lock with one line (not Deno's line per package), and the daemon's first run then prints its answer
 * only: no "Download" lines, no "Ignored build scripts" warning banner. Needs the npm registry (as bootstrap does);
 * everything else bootstrap installs is present already, so it does nothing else.
 */
import { assertEquals } from "../support/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function run(command: string, args: string[], denoDir: string) {
  const out = await new Deno.Command(command, {
    args,
    cwd: ROOT,
    env: { DENO_DIR: denoDir, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = (b: Uint8Array) => new TextDecoder().decode(b).split("\n").filter((l) => l !== "");
  return { code: out.code, stdout: lines(out.stdout), stderr: lines(out.stderr) };
}

Deno.test("first run with an empty Deno cache: bootstrap fetches quietly, the daemon prints no banner", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "tablesync-first-run-" });
  try {
    const bootstrap = await run("bash", ["scripts/bootstrap"], denoDir);
    assertEquals(bootstrap.code, 0, bootstrap.stderr.join("\n"));
    assertEquals(bootstrap.stderr, ["bootstrap: fetching the npm packages of deno.lock into Deno's cache"]);
    const deno = bootstrap.stdout.at(-1)!;
    const version = await run(deno, ["run", "--allow-all", "main.ts", "version"], denoDir);
    assertEquals(version.code, 0, version.stderr.join("\n"));
    assertEquals(version.stderr, []);
    assertEquals(version.stdout.length, 1, version.stdout.join("\n"));
    // A second bootstrap finds everything and says nothing.
    assertEquals((await run("bash", ["scripts/bootstrap"], denoDir)).stderr, []);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
