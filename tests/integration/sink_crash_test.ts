/**
 * Killing the daemon (kill -9) while sink writes are in flight and restarting it loses no record: offsets are
 * committed only past fully handled records, so the restarted sink re-delivers the rest.
 */
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

Deno.test("kill -9 during sink writes, then restart: every record lands, per-key order kept", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 0 }, users: ["admin:pw-Sink-Crash-3"] });
  // Slow writes keep many in flight when the kill lands.
  sim.faults.add({ fault: { kind: "latency", ms: 20 } });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("crash.sink", 4);
  const keys = Array.from({ length: 400 }, (_, i) => i.toString(16).padStart(32, "0"));
  // Three versions per key, produced in order: the final state must be version 3 for every key.
  for (let version = 1; version <= 3; version++) {
    await produceRecords(
      kafka.bootstrapServers,
      "crash.sink",
      keys.map((k) => ({ key: k, value: JSON.stringify({ short_description: `${k} v${version}` }) })),
    );
  }
  const config = {
    worker: { "bootstrap.servers": kafka.bootstrapServers, "offset.flush.interval.ms": 100 },
    connectors: [{
      name: "crash-sink",
      config: {
        "connector.class": "TableSinkConnector",
        "topics": "crash.sink",
        "tasks.max": 2,
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "pw-Sink-Crash-3",
        "svc.sink.table": "incident",
        "svc.sink.not.found.behavior": "create",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        // The killed member stays in the group until its session times out: keep that short.
        "consumer.override.session.timeout.ms": 6000,
        "consumer.override.heartbeat.interval.ms": 1000,
      },
    }],
  };
  const table = sim.table("incident");
  let daemon = await startDaemonProcess(config);
  try {
    await waitFor(() => table.count > 50, 60_000, "writes under way");
    await daemon.stop("SIGKILL");
    const atKill = table.count;
    daemon = await startDaemonProcess(config, { dir: daemon.dir });
    await waitFor(
      () => keys.every((k) => table.get(k)?.short_description === `${k} v3`),
      120_000,
      "every key at its last version",
    );
    assertEquals(table.count, keys.length);
    console.log(
      `sink kill -9: ${atKill} rows existed at the kill; all ${keys.length} keys reached v3 after restart`,
    );
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
