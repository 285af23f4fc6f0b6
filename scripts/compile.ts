/**
 * `deno task compile`: builds the single executable `dist/tablesync` with every task worker module included.
 *
 * `deno compile` downloads the Deno runtime for the target the first time it runs; on a machine without
 * internet access that download fails, and this script says so instead of leaving a raw network error.
 * Usage: deno task compile [--target x86_64-unknown-linux-gnu|aarch64-unknown-linux-gnu|x86_64-apple-darwin|
 *   aarch64-apple-darwin|x86_64-pc-windows-msvc] (the release workflow builds all five: .github/workflows/release.yml)
 */
import { DAEMON_V8_FLAGS } from "../src/daemon/v8_flags.ts";

const args = [...Deno.args];
const targetIndex = args.indexOf("--target");
const target = targetIndex >= 0 ? args[targetIndex + 1] : undefined;

let commit = "dev";
try {
  const out = await new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"], stderr: "null" })
    .output();
  if (out.success) commit = new TextDecoder().decode(out.stdout).trim();
} catch {
  // Not a git checkout: keep "dev".
}

const output = target ? `dist/tablesync-${target}` : "dist/tablesync";
const compileArgs = [
  "compile",
  "--allow-all",
  // Embedded into the executable: V8 applies them to every isolate (main thread and task threads).
  `--v8-flags=${DAEMON_V8_FLAGS.join(",")}`,
  // Workers are started from a URL, so the compiler cannot see them: include them explicitly.
  "--include",
  "src/runtime/task/task_thread.ts",
  "--output",
  output,
  ...(target ? ["--target", target] : []),
  "main.ts",
];
// Stamp the commit into the binary: rewrite src/build_commit.ts for the build, restore it afterwards.
const stampFile = new URL("../src/build_commit.ts", import.meta.url);
const original = await Deno.readTextFile(stampFile);
await Deno.writeTextFile(stampFile, original.replace(/= "[^"]*";/, `= ${JSON.stringify(commit)};`));
console.error(`deno ${compileArgs.join(" ")}`);
let result: Deno.CommandOutput;
try {
  result = await new Deno.Command(Deno.execPath(), { args: compileArgs, stdout: "inherit", stderr: "piped" })
    .output();
} finally {
  await Deno.writeTextFile(stampFile, original);
}
const stderr = new TextDecoder().decode(result.stderr);
await Deno.stderr.write(result.stderr);
if (!result.success) {
  if (
    /dl\.deno\.land|error sending request|dns error|failed to lookup|Network is unreachable|Connection refused|download/i
      .test(stderr)
  ) {
    console.error(
      "\ncompile failed: `deno compile` needs to download the Deno runtime for the target (dl.deno.land) the first\n" +
        "time, and this machine cannot reach it. Run `deno task compile` on a machine with internet access, or\n" +
        "set DENO_DIR to a cache that already holds the runtime (for example copied from such a machine).",
    );
  }
  Deno.exit(result.code || 1);
}
// deno compile appends .exe for Windows targets.
console.error(`built ${output}${target?.includes("windows") ? ".exe" : ""} (commit ${commit})`);
