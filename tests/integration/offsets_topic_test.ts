/**
 * Source offsets in a Kafka topic (offset.storage.topic) through the daemon, on the real broker:
 *  - the daemon creates the topic compacted (cleanup.policy=compact, read back with DescribeConfigs) with the
 *    configured partitions;
 *  - the records it writes are the bytes Kafka Connect's OffsetStorageWriter writes for the same source partition
 *    and offset (Connect's own classes, tests/conformance/);
 *  - the REST offsets endpoints read the topic, and PATCH and DELETE while STOPPED write to it (read back from
 *    the topic with an independent client), and a restarted daemon resumes from it.
 * Sink offsets over REST (the consumer group's, through admin calls) are checked by consumer_group_test.ts.
 */
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startConnectHarness } from "../conformance/connect_harness.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Offsets-Stork-52";

Deno.test("offsets topic: created compacted, Connect's record bytes, REST alter and reset write to it", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 300 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  await using connect = await startConnectHarness();
  const offsetsTopic = uniqueName("tablesync-offsets");
  const topic = uniqueName("off.incident");
  const name = uniqueName("offsets");
  await kafka.createTopic(topic, 2);
  const config = {
    worker: {
      "bootstrap.servers": kafka.bootstrapServers,
      "offset.storage.topic": offsetsTopic,
      "offset.storage.partitions": 3,
      "offset.storage.replication.factor": 1,
      "offset.flush.interval.ms": 500,
    },
    connectors: [{
      name,
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, { "svc.source.batch.size": 100 }),
    }],
  };
  let daemon = await startDaemonProcess(config);
  const dir = daemon.dir;
  try {
    assertEquals(
      (await consumeAll(kafka.bootstrapServers, topic, { expected: 300, timeoutMs: 30_000 })).length,
      300,
    );
    assertEquals((await kafka.topicConfig(offsetsTopic))["cleanup.policy"], "compact");
    assertEquals(await kafka.partitionCount(offsetsTopic), 3);

    // The stored offset reaches the newest row; REST shows what the topic holds.
    const ids = sim.table("incident").sysIds();
    const newest = sim.table("incident").get(ids[ids.length - 1])!;
    const [entry] = await waitFor(
      async () => {
        const o = (await daemon.request("GET", `/connectors/${name}/offsets`)).body.offsets;
        return o?.length === 1 && o[0].offset.sys_id === newest.sys_id ? o : null;
      },
      30_000,
      "offset of the newest row",
    );

    // The latest record of the partition is what a Connect worker would have written for it.
    const records = await readOffsetsTopic(kafka.bootstrapServers, offsetsTopic);
    const latest = records.filter((r) => JSON.parse(r.key!)[0] === name).at(-1)!;
    const theirs = await connect.request({
      op: "offset",
      connector: name,
      partition: JSON.parse(latest.key!)[1],
      offset: JSON.parse(latest.value!),
    });
    assertEquals([latest.key, latest.value], [theirs.key, theirs.value]);
    assertEquals(JSON.parse(latest.value!), entry.offset);

    // KIP-875 while STOPPED: PATCH and DELETE are records on the offsets topic.
    assertEquals((await daemon.request("PUT", `/connectors/${name}/stop`)).status, 204);
    const altered = { ...entry.offset, sys_id: "0".repeat(32) };
    const patch = await daemon.request("PATCH", `/connectors/${name}/offsets`, {
      offsets: [{ partition: entry.partition, offset: altered }],
    });
    assertEquals(patch.status, 200, JSON.stringify(patch.body));
    assertEquals(
      JSON.parse((await readOffsetsTopic(kafka.bootstrapServers, offsetsTopic)).at(-1)!.value!),
      altered,
    );
    assertEquals((await daemon.request("DELETE", `/connectors/${name}/offsets`)).status, 200);
    const afterReset = (await readOffsetsTopic(kafka.bootstrapServers, offsetsTopic)).at(-1)!;
    assertEquals(
      [JSON.parse(afterReset.key!)[0], afterReset.value],
      [name, null],
      "a tombstone resets the partition",
    );

    // A new daemon reads the topic: no stored offset for the connector any more.
    assertEquals((await daemon.stop("SIGTERM")).code, 0);
    daemon = await startDaemonProcess(config, { dir });
    const restored = (await daemon.request("GET", `/connectors/${name}/offsets`)).body.offsets;
    assertEquals(restored, []);
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});

/** Every record of the offsets topic in write order (one partition holds a connector's partition key). */
async function readOffsetsTopic(bootstrap: string, topic: string) {
  const all = await consumeAll(bootstrap, topic, { expected: Number.MAX_SAFE_INTEGER, timeoutMs: 3_000 });
  return all.sort((a, b) => a.timestamp - b.timestamp || a.offset - b.offset);
}
