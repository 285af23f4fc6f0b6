/**
 * Source topics that do not exist yet, on the real broker and on a cluster that cannot create topics:
 *  - without topic.creation.* the broker decides; this one does not auto-create topics, so the task fails with
 *    one line naming the topic and the fixes (create it, enable auto-creation, or the keys that would create it);
 *    a transform routing records to a name Kafka does not allow fails the task with one line too;
 *  - with topic.creation.* the daemon creates each topic through the admin API with its group's partitions and
 *    topic configs (checked with DescribeConfigs: values that auto-creation would not give), and rows reach it;
 *  - a topic deleted while the task writes to it fails the task with one line; a restart creates it again;
 *  - the librdkafka mock (no CreateTopics, as on some managed clusters) makes the task fail with a clear error.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Creation-Ibis-45";

const sourceConfig = (
  simUrl: string,
  topics: Record<string, string>,
  extra: Record<string, string | number> = {},
) => sourceConnectorConfig(simUrl, PASSWORD, topics, extra);

async function failedTrace(daemon: DaemonProcess, connector: string): Promise<string> {
  const status = await waitFor(
    async () => {
      const s = (await daemon.request("GET", `/connectors/${connector}/status`)).body;
      return s.tasks?.[0]?.state === "FAILED" ? s : null;
    },
    30_000,
    `${connector} FAILED`,
  );
  return status.tasks[0].trace;
}

Deno.test("topic.creation.* creates the source topics on the real broker with each group's settings", async () => {
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 40, problem: 25 },
    users: [`admin:${PASSWORD}`],
  });
  await using kafka = await startKafkaBroker();
  const incidents = uniqueName("created.incident");
  const problems = uniqueName("created.problem");
  const missing = uniqueName("missing.incident");
  const plain = uniqueName("plain");
  const routed = uniqueName("routed");
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      { name: plain, config: sourceConfig(sim.url, { incident: missing }) },
      {
        // The config's topic is valid; a transform routes records to a name Kafka does not allow.
        name: routed,
        config: sourceConfig(sim.url, { incident: uniqueName("routed") }, {
          "transforms": "route",
          "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
          "transforms.route.regex": ".*",
          "transforms.route.replacement": "routed to/nowhere",
        }),
      },
      {
        name: uniqueName("create"),
        config: sourceConfig(sim.url, { incident: incidents, problem: problems }, {
          "topic.creation.groups": "compacted",
          "topic.creation.default.partitions": 3,
          "topic.creation.default.replication.factor": 1,
          "topic.creation.default.retention.ms": 3_600_000,
          "topic.creation.compacted.include": "created\\.problem.*",
          "topic.creation.compacted.partitions": 2,
          "topic.creation.compacted.cleanup.policy": "compact",
        }),
      },
    ],
  });
  try {
    const trace = await failedTrace(daemon, plain);
    assertStringIncludes(trace, `topic ${missing} does not exist and the broker did not create it`);
    assertStringIncludes(trace, "enable auto.create.topics.enable on the broker");
    assertStringIncludes(trace, "topic.creation.default.partitions");
    assertEquals(trace.split("\n").length, 1, `one line, no stack: ${trace}`);
    assertEquals(await kafka.partitionCount(missing), null, "the plain connector must not create its topic");
    assertEquals(
      await failedTrace(daemon, routed),
      "'routed to/nowhere' is not a valid topic name: it may hold only ASCII letters, digits, '.', '_' and '-'; check svc.table.<alias>.topic and the transforms that route records",
    );
    // The broker does not auto-create topics: reading before the daemon created them would fail.
    for (const topic of [incidents, problems]) {
      await waitFor(async () => await kafka.partitionCount(topic) !== null, 30_000, `${topic} created`);
    }

    assertEquals(
      (await consumeAll(kafka.bootstrapServers, incidents, { expected: 40, timeoutMs: 30_000 })).length,
      40,
    );
    assertEquals(
      (await consumeAll(kafka.bootstrapServers, problems, { expected: 25, timeoutMs: 30_000 })).length,
      25,
    );
    assertEquals(await kafka.partitionCount(incidents), 3);
    assertEquals(await kafka.partitionCount(problems), 2);
    const incidentConfig = await kafka.topicConfig(incidents);
    assertEquals(incidentConfig["retention.ms"], "3600000");
    assertEquals(incidentConfig["cleanup.policy"], "delete");
    const problemConfig = await kafka.topicConfig(problems);
    assertEquals(problemConfig["cleanup.policy"], "compact");
    assertEquals(
      problemConfig["retention.ms"],
      "3600000",
      "a group inherits the default group's topic configs",
    );
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});

Deno.test("librdkafka mock (no CreateTopics API): topic.creation.* fails the task with a clear error", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 5 }, users: [`admin:${PASSWORD}`] });
  await using kafka = startKafkaMock();
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "create",
      config: sourceConfig(sim.url, { incident: "uncreatable.incident" }, {
        "topic.creation.default.partitions": 3,
        "topic.creation.default.replication.factor": 1,
      }),
    }],
  });
  try {
    assertStringIncludes(await failedTrace(daemon, "create"), "cannot create it through the API");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});

Deno.test("a source topic deleted while the task writes fails it with one line; a restart creates it again", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 5 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("deleted.incident");
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "deleted",
      config: sourceConfig(sim.url, { incident: topic }, {
        "topic.creation.default.partitions": 1,
        "topic.creation.default.replication.factor": 1,
        "svc.source.poll.interval.ms": 200,
        "svc.source.poll.interval.max.ms": 1000,
      }),
    }],
  });
  try {
    await waitFor(async () => await kafka.partitionCount(topic) !== null, 30_000, `${topic} created`);
    assertEquals(
      (await consumeAll(kafka.bootstrapServers, topic, { expected: 5, timeoutMs: 30_000 })).length,
      5,
    );
    await kafka.deleteTopic(topic);
    const [changed] = sim.table("incident").sysIds();
    sim.table("incident").update(changed, { short_description: "written after the topic was deleted" });
    assertEquals(
      await failedTrace(daemon, "deleted"),
      `topic ${topic} no longer exists (UNKNOWN_TOPIC_OR_PARTITION: deleted while the task wrote to it?): restart the task, which creates it again (topic.creation.*) or lets the broker do so (auto.create.topics.enable), or create it yourself`,
    );
    const restarted = await daemon.request(
      "POST",
      "/connectors/deleted/restart?includeTasks=true&onlyFailed=true",
    );
    assertEquals(restarted.status, 202);
    // The row's offset never advanced: the restarted task creates the topic and writes the row again.
    await waitFor(async () => await kafka.partitionCount(topic) !== null, 30_000, `${topic} created again`);
    // (After the restart the rows at the cursor come again too: the dedup cache does not outlive a task.)
    await waitFor(
      async () => {
        const read = await consumeAll(kafka.bootstrapServers, topic, { expected: 100, timeoutMs: 2000 });
        return read.find((r) => r.value?.includes("written after the topic was deleted")) ?? null;
      },
      60_000,
      "the row changed after the deletion, in the topic created again",
    );
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
