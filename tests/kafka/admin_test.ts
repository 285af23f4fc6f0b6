import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { consumeAll, produceRecords } from "../support/kafka_helpers.ts";
import { waitFor } from "../support/wait.ts";
import { createKafka, TopicCreationUnsupportedError, UnknownTopicError } from "../../src/kafka/mod.ts";

Deno.test("admin: cluster id, topics, partitions, watermarks, and the mock's missing CreateTopics as a typed error", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  mock.createTopic("known", 3, 1);
  await produceRecords(mock.bootstrapServers, "known", [{ value: "a", partition: 2 }, {
    value: "b",
    partition: 2,
  }]);
  const kafka = createKafka({
    brokers: [mock.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  const admin = await kafka.admin();
  try {
    assert((await admin.clusterId()).length > 0, "empty cluster id");
    assertEquals(await admin.topicExists("known"), true);
    assertEquals(await admin.topicExists("unknown"), false);
    assertEquals((await admin.listTopics()).includes("known"), true);
    assertEquals(await admin.partitionsFor("known"), [0, 1, 2]);
    await assertRejects(() => admin.partitionsFor("unknown"), UnknownTopicError);
    assertEquals(await admin.topicExists("unknown"), false, "asking about a topic must not auto-create it");
    assertEquals(await admin.fetchTopicOffsets("known"), [
      { partition: 0, low: 0, high: 0 },
      { partition: 1, low: 0, high: 0 },
      { partition: 2, low: 0, high: 2 },
    ]);
    assertEquals(await admin.createTopic("known", { partitions: 1, replicationFactor: 1 }), false);
    const error = await assertRejects(
      () =>
        admin.createTopic("fresh", {
          partitions: 2,
          replicationFactor: 1,
          configs: { "cleanup.policy": "compact" },
        }),
      TopicCreationUnsupportedError,
    );
    assertEquals((error as TopicCreationUnsupportedError).topic, "fresh");
  } finally {
    await admin.close();
  }
});

Deno.test("admin: committed offsets of an idle group are read and altered (never-joined and formerly active groups)", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  mock.createTopic("s", 2, 1);
  await produceRecords(
    mock.bootstrapServers,
    "s",
    [0, 1, 2, 3].map((i) => ({ value: `v${i}`, partition: i % 2 })),
  );
  const kafka = createKafka({
    brokers: [mock.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  const admin = await kafka.admin();
  try {
    // A group that never had members: the generation -1 commit path.
    assertEquals(await admin.fetchCommittedOffsets("connect-never"), []);
    await admin.setCommittedOffsets("connect-never", [{ topic: "s", partition: 0, offset: 1 }]);
    assertEquals(await admin.fetchCommittedOffsets("connect-never"), [
      { topic: "s", partition: 0, offset: 1, metadata: null },
    ]);

    // A group that had a member (the mock then refuses memberless commits): the short-lived member path.
    const consumer = await kafka.consumer({ topics: ["s"] }, {
      groupId: "connect-former",
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 1_000,
    });
    let committed = false;
    await consumer.run(async () => {
      await consumer.commit([{ topic: "s", partition: 0, offset: 2 }, {
        topic: "s",
        partition: 1,
        offset: 2,
      }]);
      committed = true;
    });
    await waitFor(() => committed, 60_000, "the member's commit");
    await consumer.close();
    assertEquals(
      (await admin.fetchCommittedOffsets("connect-former", ["s"])).map((o) => o.offset),
      [2, 2],
    );
    await admin.setCommittedOffsets("connect-former", [
      { topic: "s", partition: 0, offset: 1 },
      { topic: "s", partition: 1, offset: -1 },
    ]);
    assertEquals(await admin.fetchCommittedOffsets("connect-former"), [
      { topic: "s", partition: 0, offset: 1, metadata: null },
    ]);
  } finally {
    await admin.close();
  }
  // The altered offsets are what a consumer of that group starts from: partition 0 from offset 1; partition 1,
  // reset, from the beginning (auto.offset.reset=earliest).
  const resumed = await kafka.consumer({ topics: ["s"] }, {
    groupId: "connect-former",
    sessionTimeoutMs: 6_000,
  });
  const got: string[] = [];
  await resumed.run((batch) => {
    got.push(...batch.records.map((r) => `${r.partition}:${r.offset}`));
    return Promise.resolve();
  });
  try {
    await waitFor(() => got.length >= 3, 60_000, "3 records");
  } finally {
    await resumed.close();
  }
  assertEquals(got.sort(), ["0:1", "1:0", "1:1"]);
  // The helper is used by other tests; it reads everything regardless of groups.
  assertEquals((await consumeAll(mock.bootstrapServers, "s", { expected: 4 })).length, 4);
});
