/**
 * The source through the real daemon: a backfill of the simulator's incident table reaches its topic, every
 * row once, keyed by sys_id; offsets are readable over REST and survive a graceful restart.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { startSimulator } from "../../src/sim/mod.ts";

Deno.test("source backfill through the daemon delivers every row once and commits offsets", async () => {
  const password = "pw-E2e-Backfill-31";
  const sim = await startSimulator({ port: 0, seed: { incident: 3000 }, users: [`admin:${password}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("e2e.incident", 4);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "incidents",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "${env:E2E_PASSWORD}",
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "e2e.incident",
        "svc.source.batch.size": 1000,
        "svc.source.poll.interval.ms": 500,
      },
    }],
  }, { env: { E2E_PASSWORD: password } });
  try {
    const records = await consumeAll(kafka.bootstrapServers, "e2e.incident", {
      expected: 3000,
      timeoutMs: 60_000,
    });
    const keys = new Set(records.map((r) => r.key));
    assertEquals(records.length, 3000, daemon.output().slice(-3000));
    assertEquals(keys.size, 3000);
    assertEquals([...keys].sort(), sim.table("incident").sysIds().sort());
    const status = await daemon.request("GET", "/connectors/incidents/status");
    assertEquals(status.body.connector.state, "RUNNING");
    assertEquals(status.body.tasks[0].state, "RUNNING");
    const offsets = await waitFor(
      async () => {
        const res = await daemon.request("GET", "/connectors/incidents/offsets");
        return res.body.offsets.length > 0 ? res.body.offsets : null;
      },
      20_000,
      "committed offsets",
    );
    assertEquals(offsets.length, 1);
    const config = await daemon.request("GET", "/connectors/incidents/config");
    assertEquals(config.body["svc.auth.password"], "${env:E2E_PASSWORD}");
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
    assert(!daemon.output().includes(password), "the password reached the daemon's output");
  }
});
