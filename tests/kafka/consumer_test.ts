import { assertEquals } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { createKafka } from "../../src/kafka/mod.ts";
import type { ConsumedRecord, TopicPartition } from "../../src/kafka/mod.ts";
import { waitFor } from "../support/wait.ts";

// The mock delays the first join of an empty group by 3 s; the session timeout must exceed it.
const GROUP_SETTINGS = { groupId: "connect-sink", sessionTimeoutMs: 6_000, heartbeatIntervalMs: 1_000 };

Deno.test("consumer: manual commits (in the handler and on revocation at close) are where a new member resumes", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  mock.createTopic("in", 2, 1);
  await produceRecords(mock.bootstrapServers, "in", [
    { value: "p0-0", partition: 0, headers: { h: "x" } },
    { value: "p0-1", partition: 0 },
    { value: "p0-2", partition: 0 },
    { value: "p1-0", partition: 1 },
    { value: "p1-1", partition: 1 },
    { value: "p1-2", partition: 1 },
  ]);
  const kafka = createKafka({
    brokers: [mock.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });

  const first: ConsumedRecord[] = [];
  const assigned: TopicPartition[][] = [];
  const revoked: TopicPartition[][] = [];
  const consumer = await kafka.consumer({ topics: ["in"] }, GROUP_SETTINGS, {
    onPartitionsAssigned: (ps) => void assigned.push(ps),
    onPartitionsRevoked: async (ps) => {
      revoked.push(ps);
      // Still a member here: the sink flushes and commits what it wrote.
      await consumer.commit([{ topic: "in", partition: 1, offset: 3 }]);
    },
  });
  await consumer.run(async (batch) => {
    first.push(...batch.records);
    // Partition 0: only the first two records count as written.
    if (batch.partition === 0) await consumer.commit([{ topic: "in", partition: 0, offset: 2 }]);
  });
  await waitFor(() => first.length === 6, 60_000, "6 records");
  assertEquals(sortTp(consumer.assignment()), [{ topic: "in", partition: 0 }, { topic: "in", partition: 1 }]);
  await consumer.close();

  assertEquals(assigned.map(sortTp), [[{ topic: "in", partition: 0 }, { topic: "in", partition: 1 }]]);
  assertEquals(revoked.map(sortTp), [[{ topic: "in", partition: 0 }, { topic: "in", partition: 1 }]]);
  const r0 = first.find((r) => r.partition === 0 && r.offset === 0)!;
  assertEquals(new TextDecoder().decode(r0.value!), "p0-0");
  assertEquals(new TextDecoder().decode(r0.headers.h), "x");
  assertEquals(r0.key, null);

  const admin = await kafka.admin();
  try {
    assertEquals(
      (await admin.fetchCommittedOffsets("connect-sink")).map(({ topic, partition, offset }) => ({
        topic,
        partition,
        offset,
      })),
      [{ topic: "in", partition: 0, offset: 2 }, { topic: "in", partition: 1, offset: 3 }],
    );
  } finally {
    await admin.close();
  }

  await produceRecords(mock.bootstrapServers, "in", [{ value: "p1-3", partition: 1 }]);
  const second: ConsumedRecord[] = [];
  const reopened = await kafka.consumer({ topics: ["in"] }, GROUP_SETTINGS);
  try {
    await reopened.run((batch) => {
      second.push(...batch.records);
      return Promise.resolve();
    });
    await waitFor(() => second.length >= 2, 60_000, "2 records after reopening");
  } finally {
    await reopened.close();
  }
  assertEquals(
    second.map((r) => `${r.partition}:${r.offset}:${new TextDecoder().decode(r.value!)}`).sort(),
    ["0:2:p0-2", "1:3:p1-3"],
  );
});

function sortTp(ps: TopicPartition[]): TopicPartition[] {
  return [...ps].sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

Deno.test("consumer: with concurrentPartitions, batches of different partitions are handled together, one partition's never", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  mock.createTopic("wide", 3, 1);
  const produced = [0, 1, 2].flatMap((partition) =>
    [0, 1, 2].map((i) => ({ value: `p${partition}-${i}`, partition }))
  );
  await produceRecords(mock.bootstrapServers, "wide", produced);
  const kafka = createKafka({
    brokers: [mock.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  const active = new Map<number, number>();
  let activeTotal = 0;
  let mostActive = 0;
  let samePartitionOverlap = false;
  const seen: string[] = [];
  const consumer = await kafka.consumer({ topics: ["wide"] }, { ...GROUP_SETTINGS, groupId: "connect-wide" });
  try {
    await consumer.run(async (batch) => {
      const mine = (active.get(batch.partition) ?? 0) + 1;
      if (mine > 1) samePartitionOverlap = true;
      active.set(batch.partition, mine);
      mostActive = Math.max(mostActive, ++activeTotal);
      // Hold the batch until another partition's batch is being handled too (or give up after a while).
      const until = Date.now() + 5_000;
      while (activeTotal < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      seen.push(...batch.records.map((r) => new TextDecoder().decode(r.value!)));
      active.set(batch.partition, mine - 1);
      activeTotal--;
    }, { concurrentPartitions: 3 });
    await waitFor(() => seen.length === produced.length, 60_000, "every record");
  } finally {
    await consumer.close();
  }
  assertEquals(samePartitionOverlap, false);
  assertEquals(mostActive >= 2, true, `at most ${mostActive} batch(es) were handled at once`);
  for (const partition of [0, 1, 2]) {
    assertEquals(
      seen.filter((v) => v.startsWith(`p${partition}-`)),
      [0, 1, 2].map((i) => `p${partition}-${i}`),
    );
  }
});
