/**
 * Smoke test of the real daemon: it starts from a config file, connects to the Kafka broker, answers `GET /`
 * on its REST listener with {version, commit, kafka_cluster_id}, and exits 0 on SIGTERM.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { VERSION } from "../../src/version.ts";

Deno.test("daemon starts, answers GET / and exits cleanly on SIGTERM", async () => {
  await using kafka = await startKafkaBroker();
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [],
  });
  try {
    const root = await daemon.request("GET", "/");
    assertEquals(root.status, 200);
    assertEquals(root.body.version, VERSION);
    assertEquals(typeof root.body.commit, "string");
    assertMatch(root.body.kafka_cluster_id, /\S+/);
    assertEquals((await daemon.request("GET", "/connectors")).body, []);
    const unknown = await daemon.request("GET", "/connectors/nope");
    assertEquals(unknown.status, 404);
    assertEquals(unknown.body, { error_code: 404, message: "Connector nope not found" });
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    assertEquals(code, 0, daemon.output());
    assert(daemon.output().includes("tablesync stopped"), daemon.output());
  }
});
