/**
 * Deletion capture through the real daemon and broker: rows deleted over the table API reach the topic as
 * tombstones (null value bytes, keyed by sys_id, header svc.source.operation=DELETE) after the row's own records
 * in its partition, a recovered row comes back as an upsert, and the delete partition's offset is committed
 * beside the table's.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const PASSWORD = "pw-Deletes-11";

Deno.test("deleted rows reach the topic as tombstones after their rows; a recovered row comes back", async () => {
  const sim = await startSimulator({ seed: { incident: 300 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("deletes.incident");
  await kafka.createTopic(topic, 3);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "incidents",
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
        "svc.table.incident.capture.deletes": true,
        "svc.source.poll.interval.ms": 300,
      }),
    }],
  });
  try {
    await consumeAll(kafka.bootstrapServers, topic, { expected: 300, timeoutMs: 60_000 });
    const victims = sim.table("incident").sysIds().slice(0, 3);
    for (const id of victims) {
      const res = await fetch(`${sim.url}/api/now/table/incident/${id}`, {
        method: "DELETE",
        headers: { authorization: `Basic ${btoa(`admin:${PASSWORD}`)}` },
      });
      assertEquals(res.status, 204);
    }
    const withTombstones = await consumeAll(kafka.bootstrapServers, topic, {
      expected: 303,
      timeoutMs: 60_000,
    });
    const tombstones = withTombstones.filter((r) => r.value === null);
    assertEquals(tombstones.map((r) => r.key).sort(), [...victims].sort());
    for (const t of tombstones) {
      assertEquals(t.headers["svc.source.operation"], "DELETE");
      assertEquals(t.headers["svc.table"], "incident");
      const sameKey = withTombstones.filter((r) => r.key === t.key);
      assertEquals(new Set(sameKey.map((r) => r.partition)).size, 1, "a key's records share a partition");
      assertEquals(sameKey.at(-1)!.value, null, "the tombstone is the key's last record");
    }

    sim.table("incident").recover(victims[0]);
    const recovered = await consumeAll(kafka.bootstrapServers, topic, {
      expected: 304,
      timeoutMs: 60_000,
    });
    const last = recovered.filter((r) => r.key === victims[0]).at(-1)!;
    assert(last.value !== null, "the recovered row did not come back");
    assertEquals(JSON.parse(last.value).sys_id, victims[0]);
    assertEquals(last.headers["svc.source.operation"], "UPSERT");

    const offsets = await waitFor(
      async () => {
        const res = await daemon.request("GET", "/connectors/incidents/offsets");
        const list = res.body.offsets as { partition: Record<string, string> }[];
        return list.some((o) => o.partition.stream === "deletes") && list.length === 2 ? list : null;
      },
      20_000,
      "the delete partition's offset beside the table's",
    );
    assertEquals(offsets.filter((o) => o.partition.table === "incident").length, 2);
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
