/**
 * Secrets never reach output: known secrets are pushed through every path the config layer has (validate
 * table and JSON, error messages, placeholders, logs) and all output is searched for them.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { clearSecrets, redact, registerSecret } from "../../src/observability/redact.ts";
import { logger, setLogSink } from "../../src/observability/log.ts";
import { analyzeConnector } from "../../src/config/connector_config.ts";
import { analyzeWorker } from "../../src/config/worker_config.ts";
import { configInfos } from "../../src/config/config_infos.ts";
import { errorLines } from "../../src/config/analyze.ts";

const SECRETS = [
  "pw-Quartz-7781",
  "client-secret-Nimbus-42",
  "proxy-Pass-Orchid-9",
  "jaas-Sesame-5150",
  "tok-Falcon-0099",
];

function source(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "name": "s",
    "connector.class": "TableSourceConnector",
    "svc.url": "https://dev1.example.com",
    "svc.auth.type": "oauth2",
    "svc.oauth.grant.type": "password",
    "svc.auth.username": "integration",
    "svc.auth.password": SECRETS[0],
    "svc.oauth.client.id": "cid",
    "svc.oauth.client.secret": SECRETS[1],
    "svc.http.proxy.url": "http://proxy:3128",
    "svc.http.proxy.username": "u",
    "svc.http.proxy.password": SECRETS[2],
    "producer.override.sasl.jaas.config":
      `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="${
        SECRETS[3]
      }";`,
    "svc.tables": "incident",
    "svc.table.incident.name": "incident",
    "svc.table.incident.topic": "t",
    ...extra,
  };
}

function assertNoSecret(output: string, where: string) {
  for (const s of SECRETS) assert(!output.includes(s), `${where} leaks ${s}:\n${output.slice(0, 2000)}`);
}

Deno.test("ConfigInfos hides passwords and credential-bearing pass-through keys", () => {
  const analysis = analyzeConnector(source(), { worker: {} });
  assertEquals(errorLines(analysis), []);
  const infos = configInfos("TableSourceConnector", analysis);
  assertNoSecret(JSON.stringify(infos), "ConfigInfos");
  const password = infos.configs.find((c) => c.value?.name === "svc.auth.password");
  assertEquals(password?.value?.value, "[hidden]");
});

Deno.test("invalid password values are never quoted in error messages", () => {
  const analysis = analyzeConnector(source({ "svc.retry.max.attempts": "x", "svc.auth.type": SECRETS[0] }), {
    worker: {},
  });
  const lines = errorLines(analysis).join("\n");
  assert(lines.includes("svc.retry.max.attempts"), lines);
  // An invalid value of a non-password property is shown (it is not a secret), a password never is.
  const hidden = analyzeConnector(source({ "svc.auth.password": "" }), { worker: {} });
  assertNoSecret(errorLines(hidden).join("\n"), "errors");
});

Deno.test("placeholders resolve for validation, are shown unresolved, and resolved values are registered as secrets", () => {
  Deno.env.set("TABLESYNC_REDACTION_TEST_TOKEN", SECRETS[4]);
  const analysis = analyzeConnector(
    source({ "svc.auth.password": "${env:TABLESYNC_REDACTION_TEST_TOKEN}" }),
    {
      worker: {},
    },
  );
  assertEquals(analysis.raw["svc.auth.password"], SECRETS[4]);
  const infos = JSON.stringify(configInfos("TableSourceConnector", analysis));
  assertNoSecret(infos, "ConfigInfos with placeholders");
  assertEquals(redact(`token is ${SECRETS[4]}`), "token is [hidden]");
});

Deno.test("placeholders of non-secret properties are not registered: their values do not mask other text", () => {
  clearSecrets();
  Deno.env.set("TABLESYNC_REDACTION_TEST_PORT", "18683");
  Deno.env.set("TABLESYNC_REDACTION_TEST_TABLE", "u_redaction_probe");
  Deno.env.set("TABLESYNC_REDACTION_TEST_JAAS", SECRETS[3]);
  analyzeWorker({ "listeners": "http://127.0.0.1:${env:TABLESYNC_REDACTION_TEST_PORT}" });
  analyzeConnector(
    source({
      "svc.table.incident.name": "${env:TABLESYNC_REDACTION_TEST_TABLE}",
      // Not defined by tablesync (a pass-through client key): treated as a secret.
      "producer.override.sasl.jaas.config": "${env:TABLESYNC_REDACTION_TEST_JAAS}",
    }),
    { worker: {} },
  );
  assertEquals(
    redact("worker 127.0.0.1:18683 emitted 18683 rows"),
    "worker 127.0.0.1:18683 emitted 18683 rows",
  );
  assertEquals(redact("table u_redaction_probe"), "table u_redaction_probe");
  assertEquals(redact(`jaas ${SECRETS[3]}`), "jaas [hidden]");
});

Deno.test("log lines are redacted: registered secrets, Authorization headers, URL credentials, form fields", () => {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  try {
    for (const s of SECRETS) registerSecret(s);
    const log = logger("test");
    log.info({ headers: { authorization: "Basic dXNlcjpwYXNzd29yZA==" } }, `calling with ${SECRETS[0]}`);
    log.error({ err: new Error(`failed for ${SECRETS[1]}`) }, "boom");
    log.warn({ url: `http://u:${SECRETS[2]}@proxy:3128` }, "proxy");
    log.info(`body client_secret=${SECRETS[1]}&grant_type=password`);
    log.info({ token: "Bearer abcdefghijklmnop1234" }, "bearer");
  } finally {
    setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
    clearSecrets();
  }
  const out = lines.join("");
  assertNoSecret(out, "logs");
  assert(!out.includes("dXNlcjpwYXNzd29yZA=="), "basic credentials leaked");
  assert(!out.includes("abcdefghijklmnop1234"), "bearer token leaked");
  assertEquals(lines.length, 5);
});

Deno.test("a config error naming a secret property reads as written; values after such keys are hidden", () => {
  // Connect's `key: message` line of a missing password (REST 400s, `tablesync validate`).
  const line = "svc.auth.password: svc.auth.password is required when svc.auth.type=basic";
  assertEquals(redact(line), line);
  assertEquals(
    redact("rest.auth.token: rest.auth.token must not be empty"),
    "rest.auth.token: rest.auth.token must not be empty",
  );
  assertEquals(redact("password: hunter2.x is wrong"), "password: [hidden] is wrong");
  assertEquals(redact("ssl.key.password=abc.password2"), "ssl.key.password=[hidden]");
});

Deno.test("a secret with quotes and backslashes is hidden in JSON log lines too", () => {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  const secret = 'we"ird\\pass-Quill';
  try {
    registerSecret(secret);
    logger("test").info({ detail: `password is ${secret}` }, "escaped");
  } finally {
    setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
    clearSecrets();
  }
  const out = lines.join("");
  assert(!out.includes(JSON.stringify(secret).slice(1, -1)), out);
  assert(out.includes("[hidden]"), out);
});
