/**
 * More data in one partition than the librdkafka mock keeps (about 5 MiB per partition, older batches silently
 * dropped): a source backfill into a single-partition topic on the real broker, every row read back, none lost.
 * The daemon's requests stay under the broker's message.max.bytes (src/kafka/producer.ts splits them).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Volume-Crane-77";
const ROWS = 12_000;
const MOCK_CAP_BYTES = 5 * 1024 * 1024;

Deno.test("a backfill larger than the mock's per-partition cap arrives whole in one partition", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: ROWS }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("volume.incident");
  await kafka.createTopic(topic, 1);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: uniqueName("volume"),
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
        "svc.source.batch.size": 2000,
      }),
    }],
  });
  try {
    const records = await consumeAll(kafka.bootstrapServers, topic, { expected: ROWS, timeoutMs: 120_000 });
    const bytes = records.reduce((n, r) => n + (r.value?.length ?? 0) + (r.key?.length ?? 0), 0);
    console.log(
      `large volume: ${records.length} records, ${(bytes / 1024 / 1024).toFixed(1)} MiB in one partition`,
    );
    assert(
      bytes > MOCK_CAP_BYTES,
      `only ${bytes} bytes: the test must exceed the mock's cap to mean anything`,
    );
    assertEquals(records.length, ROWS, daemon.output().slice(-3000));
    assertEquals(new Set(records.map((r) => r.key)).size, ROWS);
    assertEquals(records[0].offset, 0, "the partition still starts at offset 0: nothing was dropped");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
