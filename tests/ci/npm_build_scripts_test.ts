/**
 * A first run of any checkout (the demo's included) prints no Deno "Ignored build scripts" warning banner. Deno
 * prints it for every npm package with a lifecycle script that deno.json neither allows nor denies (`allowScripts`);
 * deno.lock marks such packages with `"scripts": true`. Checked on the lock file: the banner itself appears only
 * with an empty DENO_DIR, which would mean downloading every npm package on each test run. (Seen by hand: with
 * msw left out of `allowScripts.deny`, `DENO_DIR=$(mktemp -d) deno run -A main.ts version` prints the banner.)
 */
import { assert, assertEquals } from "../support/assert.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("every npm package with a lifecycle script is allowed or denied in deno.json", async () => {
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", ROOT)));
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const withScripts = Object.entries(lock.npm ?? {})
    .filter(([, entry]) => (entry as { scripts?: boolean }).scripts === true)
    .map(([id]) => id.replace(/^(@?[^@]+)@.*$/, "$1"))
    .sort();
  assert(withScripts.length > 0, "deno.lock marks no package with scripts: has its format changed?");
  const named = [...(config.allowScripts?.allow ?? []), ...(config.allowScripts?.deny ?? [])]
    .map((spec: string) => spec.replace(/^npm:/, "").replace(/^(@?[^@]+)@.*$/, "$1"));
  assertEquals(withScripts.filter((name) => !named.includes(name)), []);
});
