/**
 * The admin adapter on the real broker: topics are created with their configs and serve at once; a probe for a
 * missing topic leaves creation to the broker; a topic's configs are read with DescribeConfigs.
 */
import { assertEquals } from "../support/assert.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { type Admin, createKafka } from "../../src/kafka/mod.ts";

function adminOf(broker: KafkaBroker): Promise<Admin> {
  return createKafka({
    brokers: [broker.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  }).admin();
}

Deno.test("admin on the real broker: createTopic applies configs and the new topic serves requests at once", async () => {
  await using broker = await startKafkaBroker();
  const admin = await adminOf(broker);
  try {
    const topic = uniqueName("admin.fresh");
    const created = await admin.createTopic(topic, {
      partitions: 3,
      replicationFactor: 1,
      configs: { "cleanup.policy": "compact" },
    });
    assertEquals(created, true);
    // Right after creation: ListOffsets answers for every partition (no NOT_LEADER_OR_FOLLOWER).
    assertEquals(
      await admin.fetchTopicOffsets(topic),
      [0, 1, 2].map((partition) => ({ partition, low: 0, high: 0 })),
    );
    assertEquals((await broker.topicConfig(topic))["cleanup.policy"], "compact");
    assertEquals(await admin.createTopic(topic, { partitions: 1, replicationFactor: 1 }), false);
  } finally {
    await admin.close();
  }
});

Deno.test("admin on the real broker: requestTopic leaves creation to the broker; topicConfigs reads a topic's configs", async () => {
  await using broker = await startKafkaBroker();
  const known = uniqueName("described");
  await broker.createTopic(known, 1, 1, { "retention.ms": "60000" });
  const admin = await adminOf(broker);
  try {
    assertEquals(await admin.requestTopic(known), "available");
    // The test broker has auto.create.topics.enable=false: the request is refused and nothing is created.
    const missing = uniqueName("never.created");
    assertEquals(await admin.requestTopic(missing), "missing");
    assertEquals(await broker.partitionCount(missing), null);
    const configs = await admin.topicConfigs(known);
    assertEquals(configs["retention.ms"], "60000");
    assertEquals(configs["cleanup.policy"], "delete", "broker defaults are included");
  } finally {
    await admin.close();
  }
});
