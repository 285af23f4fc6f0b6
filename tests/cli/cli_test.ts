/** The CLI as a user runs it: exit codes, usage on bad input, validate's table and JSON, version. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { VERSION } from "../../src/version.ts";
import { readLines } from "../support/read_lines.ts";

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

/** Writes `text` into a temp file named `name` and runs validate on it. */
async function validateText(name: string, text: string, ...flags: string[]) {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/${name}`, text);
  return { path: `${dir}/${name}`, ...(await cli("validate", "--config", `${dir}/${name}`, ...flags)) };
}

Deno.test("validate: an empty file is an error", async () => {
  for (const text of ["", "# nothing yet\n", "worker: {}\nconnectors: []\n"]) {
    const out = await validateText("empty.yaml", text);
    assertEquals(out.code, 1, text);
    assertStringIncludes(out.stderr, `error: ${out.path} is empty: no 'worker' settings and no 'connectors'`);
    assertStringIncludes(out.stdout, "1 error");
  }
});

Deno.test("validate: a file without connectors is valid with a warning, in the table and in --json", async () => {
  const text = "worker:\n  bootstrap.servers: kafka:9092\n";
  const out = await validateText("worker-only.yaml", text);
  assertEquals(out.code, 0, out.stderr);
  assertStringIncludes(out.stderr, `warning: ${out.path} has no connectors`);
  assertStringIncludes(out.stdout, "valid (0 connectors, 1 warning)");
  const json = await validateText("worker-only.yaml", text, "--json");
  assertEquals(json.code, 0);
  const doc = JSON.parse(json.stdout);
  assertEquals(doc.errors, []);
  assertEquals(doc.warnings.length, 1);
  assertStringIncludes(doc.warnings[0], "has no connectors");
});

Deno.test("validate: unknown worker keys: a near miss of ours is an error, others a warning; Connect's pass", async () => {
  const connectors = "connectors:\n" + (await Deno.readTextFile(`${FIXTURES}good/source-basic.yaml`))
    .split("\nconnectors:\n")[1];
  const typo = await validateText("typo.yaml", `worker:\n  bootstrap.server: kafka:9092\n${connectors}`);
  assertEquals(typo.code, 1);
  assertStringIncludes(
    typo.stderr,
    "error: worker: bootstrap.server: Unknown property bootstrap.server; did you mean bootstrap.servers?",
  );
  const unknown = await validateText(
    "unknown.yaml",
    `worker:\n  plugin.pth: /opt/connectors\n  frobnicate.level: 3\n${connectors}`,
  );
  assertEquals(unknown.code, 0, unknown.stderr);
  assertStringIncludes(
    unknown.stderr,
    "warning: worker: plugin.pth: Unknown property plugin.pth is ignored; did you mean plugin.path?",
  );
  assertStringIncludes(
    unknown.stderr,
    "warning: worker: frobnicate.level: Unknown property frobnicate.level",
  );
  assertStringIncludes(unknown.stdout, "valid (1 connector, 2 warnings)");
  // Kafka Connect's own worker keys and pass-through client settings move over from a Connect worker unreported.
  const connect = await validateText(
    "connect.yaml",
    "worker:\n  plugin.path: /opt/connectors\n  rest.advertised.host.name: worker-1\n" +
      "  producer.linger.ms: 5\n  consumer.max.poll.records: 100\n  admin.request.timeout.ms: 1000\n" +
      "  config.providers: file\n  config.providers.file.class: x\n  exactly.once.source.support: disabled\n" +
      connectors,
  );
  assertEquals(connect.code, 0, connect.stderr);
  assertEquals(connect.stderr, "");
  assertStringIncludes(connect.stdout, "valid (1 connector)");
});

/** Starts `run` with `worker` settings, returns once stderr shows `until`; stops it with SIGTERM. */
async function runUntil(worker: string, until: string) {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/tablesync.yaml`, `worker:\n${worker}`);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "run", "--config", `${dir}/tablesync.yaml`],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const stderr = (async () => {
    for await (const line of readLines(child.stderr)) {
      lines.push(line);
      if (line.includes(until)) child.kill("SIGTERM");
    }
  })();
  const [status, stdout] = await Promise.all([child.status, new Response(child.stdout).text(), stderr]);
  return { code: status.code, stdout, stderr: lines };
}

function refusedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("run: an unreachable Kafka is one clear line on stderr, no stack trace; a signal stops the wait", async () => {
  const port = refusedPort();
  const out = await runUntil(
    `  bootstrap.servers: 127.0.0.1:${port}\n  listeners: http://127.0.0.1:0\n  log.level: error\n`,
    "cannot reach Kafka",
  );
  assertEquals(out.stderr, [
    `tablesync: cannot reach Kafka at 127.0.0.1:${port} (bootstrap.servers): connection refused; retrying for up to 30 s`,
  ]);
  assertEquals(out.code, 0);
  assertEquals(out.stdout, "");
});

Deno.test("run: the file's warnings (unknown worker keys, no connectors) are logged", async () => {
  const out = await runUntil(
    `  bootstrap.servers: 127.0.0.1:${refusedPort()}\n  listeners: http://127.0.0.1:0\n  log.level: warn\n` +
      "  frobnicate.level: 3\n",
    "cannot reach Kafka",
  );
  const warnings = out.stderr.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  assert(
    warnings.some((w) =>
      w.level === "warn" && w.msg.includes("frobnicate.level: Unknown property frobnicate.level")
    ),
    out.stderr.join("\n"),
  );
  assert(
    warnings.some((w) => w.level === "warn" && w.msg.includes("has no connectors")),
    out.stderr.join("\n"),
  );
});

Deno.test("validate: each sink says what happens to a refused record under errors.tolerance and behavior.on.api.errors", async () => {
  const sink = (name: string, extra: string) =>
    `  - name: ${name}\n    config:\n      connector.class: TableSinkConnector\n      topics: t\n` +
    `      svc.url: https://dev1.service-now.com\n      svc.auth.username: u\n      svc.auth.password: p\n` +
    `      svc.sink.table: incident\n${extra}`;
  const text = "worker:\n  bootstrap.servers: kafka:9092\nconnectors:\n" +
    sink("tolerant", "      errors.tolerance: all\n      errors.deadletterqueue.topic.name: dlq\n") +
    sink("strict", "") +
    sink(
      "explicit",
      "      errors.tolerance: all\n      errors.deadletterqueue.topic.name: dlq\n" +
        "      behavior.on.api.errors: fail\n",
    );
  const out = await validateText("sinks.yaml", text);
  assertEquals(out.code, 0, out.stderr);
  assertStringIncludes(
    out.stdout,
    "record errors: a refused record goes to the dead letter queue dlq, is logged and skipped; the task goes on " +
      "(behavior.on.api.errors unset, so log)",
  );
  assertStringIncludes(out.stdout, "record errors: a refused record fails the task (errors.tolerance=none)");
  assertStringIncludes(
    out.stdout,
    "record errors: a refused record goes to the dead letter queue dlq, then the task fails (behavior.on.api.errors=fail)",
  );
});
