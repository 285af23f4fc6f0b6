/**
 * The dead letter queue topic is created when the task starts, as Kafka Connect's DeadLetterQueueReporter does, on
 * the real broker (which never auto-creates topics here): with `errors.deadletterqueue.topic.replication.factor`
 * 1 it exists with one partition before any record failed, and a record the sink cannot convert lands in it; with
 * the default factor 3 on a one-broker cluster the task fails at start with one line naming the key and the fix
 * (before, the first tolerated error failed the task with kafkajs's "does not host this topic-partition").
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceRecords, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sinkConnectorConfig } from "../support/sink_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Dlq-Topic-Wren-27";

Deno.test({
  name: "dead letter queue topic: created at task start, or the task fails naming the replication factor",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({ seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
    await using kafka = await startKafkaBroker();
    const [input, dlq, refusedDlq] = [uniqueName("dq.in"), uniqueName("dq.dlq"), uniqueName("dq.dlq3")];
    await kafka.createTopic(input, 1);
    const sink = (dlqTopic: string, extra: Record<string, string | number> = {}) =>
      sinkConnectorConfig(sim.url, PASSWORD, {
        topics: input,
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": dlqTopic,
        ...extra,
      });
    const daemon = await startDaemonProcess({
      worker: { "bootstrap.servers": kafka.bootstrapServers },
      connectors: [
        { name: "created", config: sink(dlq, { "errors.deadletterqueue.topic.replication.factor": 1 }) },
        { name: "refused", config: sink(refusedDlq) },
      ],
    });
    try {
      const taskState = async (name: string) =>
        (await daemon.request("GET", `/connectors/${name}/status`)).body;
      await waitFor(
        async () => (await taskState("created")).tasks?.[0]?.state === "RUNNING",
        30_000,
        "the sink with a creatable dead letter queue runs",
      );
      assertEquals(await kafka.partitionCount(dlq), 1, "created before any record failed");
      const refused = await waitFor(
        async () => {
          const task = (await taskState("refused")).tasks?.[0];
          return task?.state === "FAILED" ? task : null;
        },
        30_000,
        "the sink whose dead letter queue cannot be created fails",
      );
      assertStringIncludes(refused.trace, `could not create the dead letter queue topic ${refusedDlq}`);
      assertStringIncludes(refused.trace, "errors.deadletterqueue.topic.replication.factor");
      assertEquals(await kafka.partitionCount(refusedDlq), null);

      await produceRecords(kafka.bootstrapServers, input, [{ key: "k", value: "not a JSON object" }]);
      const dead = await waitFor(
        async () => {
          const records = await readTopicWithKcat(kafka.bootstrapServers, dlq);
          return records.length > 0 ? records : null;
        },
        30_000,
        "the unconvertible record in the dead letter queue",
      );
      assertEquals(dead.map((r) => r.value), ["not a JSON object"]);
    } finally {
      await daemon.stop();
      await sim.stop();
    }
  },
});
