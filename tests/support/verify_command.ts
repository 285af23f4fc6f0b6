/** Runs `tablesync verify` on a test daemon's config file, for one connector: exit code, stdout and stderr. */
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

export async function runVerify(
  configPath: string,
  connector: string,
): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "verify", "--config", configPath, "--connector", connector],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, out: new TextDecoder().decode(stdout), err: new TextDecoder().decode(stderr) };
}
