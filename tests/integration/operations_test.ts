/**
 * Operating the daemon: a bearer-token protected HTTPS REST listener, the Prometheus metrics, SIGTERM committing
 * the final offsets (with the versions sent in the overlap window). (Missing topics and topic.creation.*: topic_creation_test.ts.)
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { tlsFixtures } from "../support/tls_fixtures.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Ops-Puffin-61";
const TOKEN = "rest-token-Glacier-7734";

Deno.test("HTTPS listener with a bearer token, metrics, and SIGTERM committing the last cursor", async () => {
  const tls = await tlsFixtures();
  const sim = await startSimulator({ port: 0, seed: { incident: 1500 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("ops.incident", 2);
  const dir = await Deno.makeTempDir({ prefix: "tablesync-ops-" });
  await Deno.writeTextFile(`${dir}/server.pem`, tls.serverCertPem);
  await Deno.writeTextFile(`${dir}/server.key`, tls.serverKeyPem);
  const daemon = await startDaemonProcess({
    worker: {
      "bootstrap.servers": kafka.bootstrapServers,
      "listeners": "https://127.0.0.1:0",
      "listeners.https.ssl.certificate.location": `${dir}/server.pem`,
      "listeners.https.ssl.key.location": `${dir}/server.key`,
      "rest.auth.token": "${env:OPS_REST_TOKEN}",
    },
    connectors: [{
      name: "ops",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": PASSWORD,
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "ops.incident",
      },
    }],
  }, { dir, env: { OPS_REST_TOKEN: TOKEN } });
  const client = Deno.createHttpClient({ caCerts: [tls.caPem] });
  const get = (path: string, token?: string) =>
    fetch(daemon.url.replace("127.0.0.1", "localhost") + path, {
      client,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  try {
    assert(daemon.url.startsWith("https://"), daemon.url);
    const anonymous = await get("/connectors");
    assertEquals(anonymous.status, 401);
    const refusal = await anonymous.json();
    assertEquals(refusal.error_code, 401);
    assertStringIncludes(refusal.message, "send Authorization: Bearer <token>");
    const wrong = await get("/connectors", "wrong-token");
    assertEquals(wrong.status, 401);
    assertEquals(
      (await wrong.json()).message,
      "The bearer token does not match the worker's rest.auth.token",
    );
    // The scheme is case-insensitive (RFC 9110): a careless "bearer" is accepted.
    const lower = await fetch(daemon.url.replace("127.0.0.1", "localhost") + "/connectors", {
      client,
      headers: { authorization: `bearer ${TOKEN}` },
    });
    assertEquals(lower.status, 200, await lower.clone().text());
    await lower.body?.cancel();
    const ok = await get("/connectors", TOKEN);
    assertEquals(await ok.json(), ["ops"]);

    await waitFor(
      async () => (await readTopicWithKcat(kafka.bootstrapServers, "ops.incident")).length >= 1500,
      60_000,
      "backfill",
    );
    // Task metrics arrive every 2 s: wait until the counters show the whole backfill.
    const metrics = await waitFor(
      async () => {
        const text = await (await get("/metrics", TOKEN)).text();
        const produced = text.split("\n").filter((l) =>
          l.startsWith("tablesync_source_records_produced_total")
        )
          .reduce((n, l) => n + Number(l.split(" ").pop()), 0);
        // The progress gauges (lag) are published with each table's progress, every 2 s.
        return produced >= 1500 && text.includes("tablesync_source_lag_seconds{") ? text : null;
      },
      20_000,
      "metrics showing the backfill",
    );
    for (
      const line of [
        'tablesync_task_state{connector="ops",task="0",state="RUNNING"} 1',
        'tablesync_connector_state{connector="ops",type="source",state="RUNNING"} 1',
        "# TYPE tablesync_source_records_produced_total counter",
        "tablesync_source_lag_seconds{",
        "tablesync_source_rows_read_total{",
        'tablesync_instance_requests_total{instance="127.0.0.1:',
        "tablesync_instance_throttle_limit{",
        "tablesync_kafka_produce_duration_seconds_count{",
      ]
    ) assertStringIncludes(metrics, line);
    assert(!metrics.includes(PASSWORD) && !metrics.includes(TOKEN), "secret in metrics");
  } finally {
    client.close();
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-2000));
  }
  // After SIGTERM the offsets file holds the cursor of the newest row: (sys_updated_on, sys_id) of the last one.
  const table = sim.table("incident");
  const ids = table.sysIds();
  const newest = table.get(ids[ids.length - 1])!;
  const stored = JSON.parse(await Deno.readTextFile(`${dir}/offsets.json`));
  assertEquals(stored.rows.length, 1);
  const { overlap_sent, ...cursor } = stored.rows[0].value;
  assertEquals(cursor, { timestamp: newest.sys_updated_on, sys_id: newest.sys_id });
  // The graceful stop's final offset lists the versions sent in the overlap window, the newest row's among them.
  assert(
    JSON.parse(overlap_sent).includes(`${newest.sys_updated_on}|${newest.sys_id}|${newest.sys_mod_count}`),
    String(overlap_sent),
  );
  assert(!daemon.output().includes(TOKEN) && !daemon.output().includes(PASSWORD), "secret in logs");
});
