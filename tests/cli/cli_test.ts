/** The CLI as a user runs it: exit codes, usage on bad input, validate's table and JSON, version. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { VERSION } from "../../src/version.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const FIXTURES = new URL("../fixtures/configs/", import.meta.url).pathname;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    env: { NO_COLOR: "1", TABLESYNC_TEST_PASSWORD: "pw-from-env-Cli" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("no command, an unknown command or an unknown flag prints the usage and exits 2", async () => {
  const none = await cli();
  assertEquals(none.code, 2);
  assertStringIncludes(none.stdout, "usage: tablesync <command>");
  const unknown = await cli("frobnicate");
  assertEquals(unknown.code, 2);
  assertStringIncludes(unknown.stderr, "unknown command 'frobnicate'");
  const flag = await cli("validate", "--config", `${FIXTURES}good/source-basic.yaml`, "--verbose");
  assertEquals(flag.code, 2);
  assertStringIncludes(flag.stderr, "unknown flag --verbose");
  assertStringIncludes(flag.stderr, "tablesync validate --config FILE");
  const missing = await cli("run");
  assertEquals(missing.code, 2);
  assertStringIncludes(missing.stderr, "--config FILE is required");
});

Deno.test("every command has --help", async () => {
  for (const command of ["run", "validate", "schema", "simulate", "version"]) {
    const help = await cli(command, "--help");
    assertEquals(help.code, 0, `${command} --help`);
    assert(help.stdout.length > 20, `${command} --help printed nothing`);
  }
});

Deno.test("schema prints the committed JSON Schema of the config file", async () => {
  const out = await cli("schema");
  assertEquals(out.code, 0, out.stderr);
  const committed = await Deno.readTextFile(new URL("../../docs/tablesync.schema.json", import.meta.url));
  assertEquals(out.stdout, committed);
  assertEquals(JSON.parse(out.stdout).title, "tablesync config file");
});

Deno.test("version prints the version", async () => {
  const out = await cli("version");
  assertEquals(out.code, 0);
  assertStringIncludes(out.stdout, `tablesync ${VERSION}`);
});

Deno.test("validate: a good file exits 0 with a table, hiding passwords", async () => {
  const out = await cli("validate", "--config", `${FIXTURES}good/source-basic.yaml`);
  assertEquals(out.code, 0, out.stderr);
  assertStringIncludes(out.stdout, "svc.auth.password");
  assertStringIncludes(out.stdout, "[hidden]");
  assert(!out.stdout.includes("s3cret-pass"), "password printed");
  assertStringIncludes(out.stdout, "valid (1 connector)");
});

Deno.test("validate: a bad file exits 1 naming the property; --json prints ConfigInfos", async () => {
  const path = `${FIXTURES}bad/query-orderby.yaml`;
  const out = await cli("validate", "--config", path);
  assertEquals(out.code, 1);
  assertStringIncludes(out.stderr, "svc.table.incident.query");
  assertStringIncludes(out.stderr, "ORDERBY");
  const json = await cli("validate", "--config", path, "--json");
  assertEquals(json.code, 1);
  const doc = JSON.parse(json.stdout);
  const infos = doc.connectors["query-orderby"];
  assertEquals(infos.error_count, 1);
  assert(infos.groups.includes("Table: incident"), infos.groups.join(","));
  const query = infos.configs.find((c: any) => c.value.name === "svc.table.incident.query");
  assertEquals(query.definition.type, "STRING");
  assertStringIncludes(query.value.errors[0], "ORDERBY");
});

Deno.test("run with a missing config file exits 1 with a clear message", async () => {
  const out = await cli("run", "--config", "/nonexistent/tablesync.yaml");
  assertEquals(out.code, 1);
  assertStringIncludes(out.stderr, "cannot read config file /nonexistent/tablesync.yaml");
});

Deno.test("the example configs in deploy/examples validate (placeholders resolved from test values)", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/secrets.properties`, "truststore.password=changeit\n");
  const examples = new URL("../../deploy/examples/", import.meta.url).pathname;
  for (const entry of Deno.readDirSync(examples)) {
    if (!entry.name.endsWith(".yaml")) continue;
    let text = await Deno.readTextFile(examples + entry.name);
    text = text.replaceAll("/etc/tablesync/secrets.properties", `${dir}/secrets.properties`);
    await Deno.writeTextFile(`${dir}/${entry.name}`, text);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", MAIN, "validate", "--config", `${dir}/${entry.name}`],
      env: {
        NO_COLOR: "1",
        DEMO_BOOTSTRAP_SERVERS: "127.0.0.1:9092",
        DEMO_REST_PORT: "18083",
        DEMO_DATA_DIR: dir,
        DEMO_INSTANCE_URL: "http://127.0.0.1:8089",
        DEMO_INSTANCE_PASSWORD: "demo-pass",
        TABLESYNC_REST_TOKEN: "token-value",
        TABLESYNC_OAUTH_SECRET: "oauth-secret",
        TABLESYNC_INSTANCE_PASSWORD: "instance-pass",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(out.code, 0, `${entry.name}: ${new TextDecoder().decode(out.stderr)}`);
  }
});
