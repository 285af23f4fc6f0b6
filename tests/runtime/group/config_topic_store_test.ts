/**
 * The group's config topic against the real broker: Kafka Connect's keys and value shapes on the topic (read
 * back with kcat), a change written by one member reaching another member's listener, the config and
 * status topics created when missing, and a task's warnings carried by the status topic (tablesync's extra
 * `warnings` field, only when there are some).
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { consumeAll, readTopicWithKcat } from "../../support/kafka_helpers.ts";
import { waitFor } from "../../support/wait.ts";
import { createKafka } from "../../../src/kafka/mod.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { ConfigTopicStore } from "../../../src/runtime/group/config_topic_store.ts";
import { StatusTopicStore } from "../../../src/runtime/group/status_topic_store.ts";
import type { StoredConnector } from "../../../src/runtime/herder/connector_state_store.ts";

setLogLevel("error");

const clientFor = (broker: KafkaBroker) =>
  createKafka({
    brokers: [broker.bootstrapServers],
    clientId: "t",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });

/** A fresh compacted single-partition config topic and a client of the broker. */
async function configTopic(broker: KafkaBroker) {
  const topic = uniqueName("configs");
  await broker.createTopic(topic, 1, 1, { "cleanup.policy": "compact" });
  return { topic, kafka: clientFor(broker) };
}

/** Two members' config stores on a fresh config topic, started. */
async function twoMembers(broker: KafkaBroker) {
  const { topic, kafka } = await configTopic(broker);
  const one = new ConfigTopicStore(kafka, topic);
  const two = new ConfigTopicStore(kafka, topic);
  await Promise.all([one.start(), two.start()]);
  return { topic, kafka, one, two };
}

Deno.test({
  name: "config topic: Connect's records; a change on one member reaches the other; tombstones delete",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using broker = await startKafkaBroker();
    const { topic, one, two } = await twoMembers(broker);
    const seen: [string, StoredConnector | undefined][] = [];
    two.onChange((name, entry) => seen.push([name, entry]));
    try {
      const config = { "connector.class": "TableSourceConnector", "tasks.max": "2", name: "src" };
      await one.put("src", { config, target: "RUNNING", fileHash: "abc" });
      await one.put("src", { config, target: "STOPPED", fileHash: "abc" });
      await one.put("old", { config: { name: "old" }, target: "PAUSED" });
      await one.put("file", { config: {}, target: "RUNNING", deleted: true, fileHash: "f1" });
      await one.remove("old");
      // The writer returns once it read its own write back; the other member follows the same log.
      await two.waitForPosition(one.position());
      assertEquals(two.get("src"), { config, target: "STOPPED", fileHash: "abc" });
      assertEquals(two.get("old"), undefined);
      assertEquals(two.get("file")?.deleted, true);
      assertEquals(two.names().sort(), ["file", "src"]);
      assertEquals(seen.at(-1), ["old", undefined]);
      assert(seen.some(([n, e]) => n === "src" && e?.target === "STOPPED"));
      assert(
        seen.some(([n, e]) => n === "file" && e === undefined),
        "a deleted connector is reported as gone",
      );

      const records = await readTopicWithKcat(broker.bootstrapServers, topic);
      const byKey = new Map(records.map((r) => [r.key, r.value === null ? null : JSON.parse(r.value)]));
      assertEquals(byKey.get("connector-src"), { properties: config, "file.hash": "abc" });
      assertEquals(byKey.get("target-state-src"), { state: "PAUSED", "state.v2": "STOPPED" });
      assertEquals(byKey.get("connector-old"), null);
      assertEquals(byKey.get("target-state-old"), null);
      assertEquals(records.every((r) => r.partition === 0), true);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  },
});

Deno.test({
  name:
    "config topic: a cluster-wide logger level (Connect's logger-cluster-<name>) reaches the other member",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using broker = await startKafkaBroker();
    const { topic, kafka } = await configTopic(broker);
    const one = new ConfigTopicStore(kafka, topic);
    await one.start();
    await one.requestLoggerLevel("old", "TRACE"); // written before the other member started: not applied there
    const two = new ConfigTopicStore(kafka, topic);
    await two.start();
    const levels: [string, string][] = [];
    two.onLoggerLevel((name, level) => levels.push([name, level]));
    try {
      await one.requestLoggerLevel("task", "DEBUG");
      await two.waitForPosition(one.position());
      assertEquals(levels, [["task", "DEBUG"]]);
      assertEquals(two.names(), [], "a logger level is no connector");
      const records = await readTopicWithKcat(broker.bootstrapServers, topic);
      assertEquals(JSON.parse(records.find((r) => r.key === "logger-cluster-task")!.value!), {
        level: "DEBUG",
      });
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  },
});

Deno.test({
  name:
    "config topic: Connect's task count record (tasks-fencing-<name>) reaches the other member and outlives a deletion",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using broker = await startKafkaBroker();
    const { topic, kafka, one, two } = await twoMembers(broker);
    try {
      await one.put("src", { config: { name: "src" }, target: "RUNNING" });
      await one.putTaskCountRecord("src", { taskCount: 2, configHash: "h1" });
      await one.remove("src");
      await two.waitForPosition(one.position());
      assertEquals(two.taskCountRecord("src"), { taskCount: 2, configHash: "h1" });
      assertEquals(two.names(), [], "a task count record is no connector");
      const records = await readTopicWithKcat(broker.bootstrapServers, topic);
      assertEquals(JSON.parse(records.find((r) => r.key === "tasks-fencing-src")!.value!), {
        "task-count": 2,
        "config.hash": "h1",
      });
      // A member that starts later reads it too (the next round fences from it).
      const three = new ConfigTopicStore(kafka, topic);
      await three.start();
      assertEquals(three.taskCountRecord("src")?.taskCount, 2);
      await three.close();
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  },
});

Deno.test("config topic: a topic with several partitions is refused with what to do", async () => {
  await using broker = await startKafkaBroker();
  const several = uniqueName("configs");
  await broker.createTopic(several, 3, 1);
  const store = new ConfigTopicStore(clientFor(broker), several);
  const error = await store.start().then(() => null, (e: Error) => e);
  await store.close();
  assert(
    error && /has 3 partitions; it must have exactly 1/.test(error.message) &&
      error.message.includes("config.storage.topic"),
    String(error),
  );
});

Deno.test({
  name:
    "config and status topics: created when missing (compacted; 1 and status.storage.partitions partitions)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using broker = await startKafkaBroker();
    const kafka = clientFor(broker);
    const configTopic = uniqueName("configs");
    const statusTopic = uniqueName("status");
    // Two members starting at once: one creates each topic, the other finds it.
    const configs = [
      new ConfigTopicStore(kafka, configTopic, -1),
      new ConfigTopicStore(kafka, configTopic, 1),
    ];
    const statuses = [1, 2].map(() =>
      new StatusTopicStore(kafka, statusTopic, { partitions: 3, replicationFactor: -1 })
    );
    try {
      await Promise.all([...configs, ...statuses].map((s) => s.start()));
      assertEquals(await broker.partitionCount(configTopic), 1);
      assertEquals(await broker.partitionCount(statusTopic), 3);
      for (const topic of [configTopic, statusTopic]) {
        assertEquals((await broker.topicConfig(topic))["cleanup.policy"], "compact");
      }
      await configs[0].put("src", { config: { name: "src" }, target: "RUNNING" });
      await configs[1].waitForPosition(configs[0].position());
      assertEquals(configs[1].get("src")?.config, { name: "src" });
    } finally {
      await Promise.all([...configs, ...statuses].map((s) => s.close()));
    }
  },
});

Deno.test({
  name:
    "status topic: a task's warnings and generation reach the other member; warnings are left out once gone",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using broker = await startKafkaBroker();
    const topic = uniqueName("statuses");
    const kafka = clientFor(broker);
    const [writer, reader] = [1, 2].map(() =>
      new StatusTopicStore(kafka, topic, { partitions: 1, replicationFactor: -1 })
    );
    try {
      await Promise.all([writer.start(), reader.start()]);
      const warnings = ["waiting for topic orders.in to exist (checked every 5 s)"];
      writer.putTask("sink", 0, { state: "RUNNING", workerId: "a:8083", warnings }, 1);
      await waitFor(() => reader.task("sink", 0)?.warnings !== undefined, 30_000, "the warnings read back");
      // The generation comes back too: a member tells a status from before a rebalance round from a later one.
      assertEquals(reader.task("sink", 0), { state: "RUNNING", workerId: "a:8083", warnings, generation: 1 });
      writer.putTask("sink", 0, { state: "RUNNING", workerId: "a:8083", warnings: [] }, 1);
      await waitFor(() => reader.task("sink", 0)?.warnings === undefined, 30_000, "the warnings cleared");
      const values = (await consumeAll(broker.bootstrapServers, topic, { expected: 2, timeoutMs: 30_000 }))
        .map((r) => JSON.parse(r.value!));
      assertEquals(values, [
        { state: "RUNNING", trace: null, worker_id: "a:8083", generation: 1, warnings },
        { state: "RUNNING", trace: null, worker_id: "a:8083", generation: 1 },
      ]);
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  },
});
