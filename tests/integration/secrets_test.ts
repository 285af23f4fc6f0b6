/**
 * No secret reaches any output. Known secrets go into every secret-bearing property (OAuth client secret, the
 * password grant's password, the proxy password, the trust store password, a Kafka SASL JAAS line, the REST token);
 * the daemon runs a source through the proxy over HTTPS and a sink whose writes fail with record errors. Then
 * every output is searched: the daemon's log lines, every REST response (info, config, status, tasks, offsets,
 * validate, metrics, error bodies), and the records on the data, reporter and dead letter topics.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { produceRecords, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startConnectProxy } from "../support/connect_proxy.ts";
import { tlsFixtures } from "../support/tls_fixtures.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const SECRETS = {
  clientSecret: "oauth-Secret-Marigold-4417",
  password: "user-Pass-Juniper-9931",
  proxyPassword: "proxy-Pass-Tamarind-2208",
  restToken: "rest-Token-Wisteria-5176",
  jaasPassword: "jaas-Pass-Saffron-6649",
};

Deno.test("secrets never appear in logs, REST responses or topic records", async () => {
  const tls = await tlsFixtures();
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 40 },
    users: [`integration:${SECRETS.password}`],
    oauthClients: [`tablesync:${SECRETS.clientSecret}`],
    tls: { cert: tls.serverCertPem, key: tls.serverKeyPem },
  });
  const proxy = startConnectProxy({ username: "proxyuser", password: SECRETS.proxyPassword });
  await using kafka = await startKafkaBroker();
  for (const t of ["sec.incident", "sec.in", "sec.errors", "sec.dlq"]) await kafka.createTopic(t, 1);
  const url = sim.url.replace("127.0.0.1", "localhost");
  const auth = {
    "svc.url": url,
    "svc.auth.type": "oauth2",
    "svc.oauth.grant.type": "password",
    "svc.oauth.client.id": "tablesync",
    "svc.oauth.client.secret": "${env:SEC_CLIENT_SECRET}",
    "svc.auth.username": "integration",
    "svc.auth.password": SECRETS.password,
    "svc.tls.truststore.path": tls.truststoreP12,
    "svc.tls.truststore.type": "PKCS12",
    "svc.tls.truststore.password": tls.password,
    "svc.tls.truststore.public.roots": true,
    "svc.http.proxy.url": proxy.url,
    "svc.http.proxy.username": "proxyuser",
    "svc.http.proxy.password": SECRETS.proxyPassword,
    "producer.override.sasl.jaas.config":
      `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="${SECRETS.jaasPassword}";`,
  };
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers, "rest.auth.token": "${env:SEC_REST_TOKEN}" },
    connectors: [
      {
        name: "sec-source",
        config: {
          "connector.class": "TableSourceConnector",
          ...auth,
          "svc.tables": "incident",
          "svc.table.incident.name": "incident",
          "svc.table.incident.topic": "sec.incident",
        },
      },
      {
        name: "sec-sink",
        config: {
          "connector.class": "TableSinkConnector",
          ...auth,
          "producer.override.sasl.jaas.config": undefined as unknown as string,
          "topics": "sec.in",
          "svc.sink.table": "incident",
          "svc.sink.unknown.field.behavior": "fail",
          "svc.sink.reporter.bootstrap.servers": kafka.bootstrapServers,
          "svc.sink.reporter.error.topic": "sec.errors",
          "errors.tolerance": "all",
          "errors.deadletterqueue.topic.name": "sec.dlq",
          "errors.deadletterqueue.context.headers.enable": true,
          "behavior.on.api.errors": "log",
          "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        },
      },
    ].map((c) => ({
      ...c,
      config: Object.fromEntries(Object.entries(c.config).filter(([, v]) => v !== undefined)),
    })),
  }, { env: { SEC_CLIENT_SECRET: SECRETS.clientSecret, SEC_REST_TOKEN: SECRETS.restToken } });
  const outputs: string[] = [];
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(daemon.url + path, {
      method,
      headers: { authorization: `Bearer ${SECRETS.restToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    outputs.push(`${method} ${path} → ${res.status} ${text}`);
    return { status: res.status, text };
  };
  try {
    await waitFor(
      async () => (await readTopicWithKcat(kafka.bootstrapServers, "sec.incident")).length >= 40,
      60_000,
      "source rows",
    );
    assert(proxy.tunnels > 0, "the source did not go through the proxy");
    // Sink records that fail: an unknown field (record error → reporter and DLQ) and an update of a missing row.
    await produceRecords(kafka.bootstrapServers, "sec.in", [
      {
        key: sim.table("incident").sysIds()[0],
        value: JSON.stringify({ no_such_field: SECRETS.password.slice(0, 3) }),
      },
      { key: "f".repeat(32), value: JSON.stringify({ short_description: "missing row" }) },
    ]);
    await waitFor(
      async () => (await readTopicWithKcat(kafka.bootstrapServers, "sec.errors")).length >= 2,
      60_000,
      "error reports",
    );
    for (const path of ["/", "/connectors?expand=info&expand=status", "/connector-plugins", "/metrics"]) {
      await api("GET", path);
    }
    for (const name of ["sec-source", "sec-sink"]) {
      for (
        const tail of ["", "/config", "/status", "/tasks", "/tasks/0/status", "/offsets", "/tasks-config"]
      ) {
        await api("GET", `/connectors/${name}${tail}`);
      }
    }
    const config = JSON.parse((await api("GET", "/connectors/sec-source/config")).text);
    await api("PUT", "/connector-plugins/TableSourceConnector/config/validate", config);
    await api("PUT", "/connector-plugins/TableSourceConnector/config/validate", {
      ...config,
      "svc.auth.password": SECRETS.password,
      "svc.source.batch.size": "0",
    });
    await api("POST", "/connectors", {
      name: "bad",
      config: { ...config, "svc.auth.password": SECRETS.password, "tasks.max": "x" },
    });
    assertEquals(
      JSON.parse((await api("GET", "/connectors/sec-source/config")).text)["svc.auth.password"],
      "[hidden]",
    );
    for (const topic of ["sec.incident", "sec.errors", "sec.dlq"]) {
      outputs.push(JSON.stringify(await readTopicWithKcat(kafka.bootstrapServers, topic)));
    }
  } finally {
    await daemon.stop("SIGTERM");
    await proxy.close();
    await sim.stop();
  }
  outputs.push(daemon.output());
  const everything = outputs.join("\n");
  for (const [name, secret] of Object.entries(SECRETS)) {
    assert(
      !everything.includes(secret),
      `${name} leaked:\n${everything.split("\n").find((l) => l.includes(secret))}`,
    );
  }
  assert(!everything.includes(btoa(`integration:${SECRETS.password}`)), "basic credentials leaked");
});
