/**
 * Every config in tests/fixtures/configs/bad/ fails validation with the error its comment names
 * (`# expect: <property> | <message fragment>`, or `(file)` for errors in the file's structure),
 * and every config in good/ passes.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { loadConfigFile } from "../../src/config/load.ts";
import { ConfigError } from "../../src/common/config_error.ts";
import { analyzeWorker, workerStrings } from "../../src/config/worker_config.ts";
import { analyzeConnector } from "../../src/config/connector_config.ts";
import type { Analysis } from "../../src/config/analyze.ts";
import { errorLines } from "../../src/config/analyze.ts";
import { configFilesIn } from "../support/config_files.ts";

const root = new URL("../fixtures/configs/", import.meta.url);

/** The paths of the config files in `dir` of the fixtures. */
const filesIn = (dir: string) => configFilesIn(new URL(`${dir}/`, root)).map((url) => url.pathname);

async function expectationOf(path: string): Promise<{ property: string; fragment: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${path}.expect`);
  } catch {
    text = await Deno.readTextFile(path);
  }
  const m = /^(?:# expect: )?(\S+) \| (.+)$/m.exec(text);
  if (!m) throw new Error(`${path} does not say which error it expects (# expect: <property> | <fragment>)`);
  return { property: m[1], fragment: m[2].trim() };
}

/** Validates a whole file as the validate command does; returns every analysis or the file-level error. */
async function validateFile(path: string): Promise<{ fileError?: string; analyses: Analysis[] }> {
  try {
    const config = await loadConfigFile(path);
    const worker = analyzeWorker(config.worker);
    const analyses: Analysis[] = [worker];
    for (const c of config.connectors) {
      analyses.push(analyzeConnector(c.config, { worker: workerStrings(worker) }));
    }
    return { analyses };
  } catch (e) {
    if (e instanceof ConfigError) return { fileError: e.message, analyses: [] };
    throw e;
  }
}

Deno.env.set("TABLESYNC_TEST_PASSWORD", "pw-from-environment");
Deno.env.delete("TABLESYNC_TEST_UNSET_VARIABLE");

const bad = filesIn("bad");

Deno.test("there are at least 40 bad configs", () => {
  assert(bad.length >= 40, `only ${bad.length} bad configs`);
});

for (const path of bad) {
  const name = path.slice(path.lastIndexOf("/") + 1);
  Deno.test(`bad config ${name} fails with the error it names`, async () => {
    const { property, fragment } = await expectationOf(path);
    const result = await validateFile(path);
    if (property === "(file)") {
      assert(result.fileError !== undefined, `${name}: expected a file-level error`);
      assert(result.fileError.includes(fragment), `${name}: '${result.fileError}' lacks '${fragment}'`);
      return;
    }
    assertEquals(result.fileError, undefined);
    const messages = result.analyses.flatMap((a) => a.errors.get(property) ?? []);
    const all = result.analyses.flatMap(errorLines);
    assert(messages.length > 0, `${name}: no error on ${property}; errors were:\n${all.join("\n")}`);
    assert(
      messages.some((m) => m.includes(fragment)),
      `${name}: errors on ${property} lack '${fragment}':\n${messages.join("\n")}`,
    );
    assert(
      messages.some((m) => m.includes(fragment) && m.includes(property)),
      `${name}: the message does not name the property ${property}: ${messages.join("; ")}`,
    );
  });
}

for (const path of filesIn("good")) {
  const name = path.slice(path.lastIndexOf("/") + 1);
  Deno.test(`good config ${name} validates without errors`, async () => {
    const result = await validateFile(path);
    assertEquals(result.fileError, undefined);
    assertEquals(result.analyses.flatMap(errorLines), []);
  });
}
