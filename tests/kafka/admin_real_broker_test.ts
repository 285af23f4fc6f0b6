/** The admin adapter on the real broker: topics are created with their configs and serve at once. */
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { createKafka } from "../../src/kafka/mod.ts";

Deno.test("admin on the real broker: createTopic applies configs and the new topic serves requests at once", async () => {
  await using broker = await startKafkaBroker();
  const kafka = createKafka({
    brokers: [broker.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  const admin = await kafka.admin();
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
