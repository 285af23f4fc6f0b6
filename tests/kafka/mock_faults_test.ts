import { assertEquals } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { createKafka } from "../../src/kafka/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("mock harness: with 3 brokers one goes down, its partitions move, sends succeed, and it comes back", async () => {
  await using mock = startKafkaMock({ brokers: 3 });
  assertEquals(mock.bootstrapServers.split(",").length, 3);
  mock.createTopic("f", 3, 3);
  for (let p = 0; p < 3; p++) mock.setPartitionLeader("f", p, p + 1);
  const kafka = createKafka({
    brokers: mock.bootstrapServers.split(","),
    clientId: "test",
    requestTimeoutMs: 5_000,
    connectionTimeoutMs: 1_000,
  });
  const producer = await kafka.producer({ retries: 10 });
  try {
    const toAll = (tag: string) =>
      [0, 1, 2].map((p) => ({ topic: "f", partition: p, key: null, value: enc(tag) }));
    assertEquals((await producer.send(toAll("before"))).map((a) => a.offset), [0, 0, 0]);

    // Broker 2 leads partition 1. Down it, move its leadership to broker 3 (what a real controller would do).
    mock.brokerDown(2);
    mock.setPartitionLeader("f", 1, 3);
    // kafkajs refreshes metadata after the connection error and retries against the new leader.
    assertEquals((await producer.send(toAll("during"))).map((a) => a.offset), [1, 1, 1]);

    mock.brokerUp(2);
    mock.setPartitionLeader("f", 1, 2);
    // Injected retriable errors are retried transparently.
    mock.pushRequestErrors(0, [6, 7]);
    assertEquals((await producer.send(toAll("after"))).map((a) => a.offset), [2, 2, 2]);
  } finally {
    await producer.close();
  }
  const values = (await readTopicWithKcat(mock.bootstrapServers, "f")).map((r) =>
    `${r.partition}:${r.value}`
  );
  assertEquals(values, [
    "0:before",
    "0:during",
    "0:after",
    "1:before",
    "1:during",
    "1:after",
    "2:before",
    "2:during",
    "2:after",
  ]);
});
