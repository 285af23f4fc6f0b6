import { assertEquals } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { createKafka } from "../../src/kafka/mod.ts";
import type { ConsumedRecord } from "../../src/kafka/mod.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("consumer: a regex subscription reads the matching topics only; a handler error stops delivery", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  for (const topic of ["rx.a", "rx.b", "other"]) mock.createTopic(topic, 1, 1);
  for (const topic of ["rx.a", "rx.b", "other"]) {
    await produceRecords(mock.bootstrapServers, topic, [{ value: `${topic}-0` }, { value: `${topic}-1` }]);
  }
  const crashes: Error[] = [];
  const kafka = createKafka(
    {
      brokers: [mock.bootstrapServers],
      clientId: "test",
      requestTimeoutMs: 10_000,
      connectionTimeoutMs: 3_000,
    },
    { onConsumerCrash: (e) => void crashes.push(e) },
  );
  const seen: ConsumedRecord[] = [];
  const consumer = await kafka.consumer({ pattern: /^rx\./ }, {
    groupId: "rx-group",
    sessionTimeoutMs: 6_000,
    heartbeatIntervalMs: 1_000,
  });
  try {
    await consumer.run((batch) => {
      seen.push(...batch.records);
      // Fail once both matching topics have been delivered (their order is up to the fetcher).
      const topics = new Set(seen.map((r) => r.topic));
      if (topics.has("rx.a") && topics.has("rx.b")) return Promise.reject(new Error("sink write failed"));
      return Promise.resolve();
    });
    await waitFor(() => crashes.length === 1, 60_000, "the handler error to be reported");
    assertEquals([...new Set(seen.map((r) => r.topic))].sort(), ["rx.a", "rx.b"]);
    assertEquals(crashes[0].message, "sink write failed");
    // The failed batch is not redelivered (kafkajs's own retry would feed it to the handler again).
    assertEquals(seen.length, 4);
  } finally {
    await consumer.close();
  }
});
