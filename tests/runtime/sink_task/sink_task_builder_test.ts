/**
 * A sink task as its builder (src/runtime/sink_task/sink_task_builder.ts) wires it, in this thread, against the
 * simulator and the real broker: the connector's task behind a consumer of the connector's group
 * (`connect-<name>`, or `consumer.override.group.id`), the converters and transforms of its config; records on
 * its topic become rows, and its group's offsets are committed when it stops.
 */
import { asStrings, environmentHooks, kafkaClient, startMessage } from "../../support/task_start.ts";
import { assertEquals } from "../../support/assert.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { produceWithKcat } from "../../support/kafka_helpers.ts";
import { SCHEMALESS_JSON, sinkConnectorConfig } from "../../support/sink_connector.ts";
import { waitFor } from "../../support/wait.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { type Simulator, startSimulator } from "../../../src/sim/mod.ts";
import { buildSinkTask } from "../../../src/runtime/sink_task/sink_task_builder.ts";
import { taskEnvironment } from "../../../src/runtime/task/task_environment.ts";

setLogLevel("error");

const PASSWORD = "pw-Builder-Stork-9";

/** Runs the built sink task until `done`, then stops it as the task thread does. */
async function runSink(
  broker: KafkaBroker,
  config: Record<string, string>,
  done: () => boolean,
): Promise<void> {
  const env = await taskEnvironment(
    startMessage("sink", config, { "bootstrap.servers": broker.bootstrapServers }),
    environmentHooks(),
  );
  const built = buildSinkTask(env);
  await built.start();
  const running = built.driver.run();
  try {
    await waitFor(done, 60_000, "the sink's rows");
  } finally {
    env.stopSignal.abort();
    await running;
    await built.cleanup();
  }
}

const rowsNamed = (sim: Simulator, prefix: string) =>
  sim.table("incident").sysIds().map((id) => sim.table("incident").get(id)!)
    .filter((row) => String(row.short_description ?? "").startsWith(prefix));

Deno.test({
  name: "a built sink task writes its topic's records as rows and commits its group's offsets on stop",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await startKafkaBroker();
    const sim = await startSimulator({ seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
    try {
      const topic = uniqueName("sink-builder");
      await broker.createTopic(topic, 1);
      const prefix = `${topic} `;
      await produceWithKcat(
        broker.bootstrapServers,
        topic,
        [1, 2, 3].map((n) => `{"short_description":"${prefix}${n}"}`),
        false,
      );
      const group = uniqueName("sink-builder-group");
      const config = asStrings(
        sinkConnectorConfig(sim.url, PASSWORD, {
          name: "sink-builder",
          topics: topic,
          ...SCHEMALESS_JSON,
          "consumer.override.group.id": group,
          "consumer.override.auto.offset.reset": "earliest",
        }),
      );
      await runSink(broker, config, () => rowsNamed(sim, prefix).length >= 3);
      assertEquals(
        rowsNamed(sim, prefix).map((r) => r.short_description).sort(),
        [1, 2, 3].map((n) => `${prefix}${n}`),
      );
      const kafka = kafkaClient(broker.bootstrapServers);
      const admin = await kafka.admin();
      try {
        assertEquals((await admin.fetchCommittedOffsets(group, [topic])).map((c) => c.offset), [3]);
      } finally {
        await admin.close();
      }
    } finally {
      await sim.stop();
    }
  },
});
