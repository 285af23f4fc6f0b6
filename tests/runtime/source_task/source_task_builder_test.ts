/**
 * A source task as its builder (src/runtime/source_task/source_task_builder.ts) wires it, in this thread, against
 * the simulator and the real broker: the connector's task polls its table, the driver sends each row to the
 * table's topic and posts the committable offsets to the main thread; started again with those offsets (the
 * start message's), the task resumes after them: a new row is sent, the others not again.
 */
import { asStrings, environmentHooks, startMessage } from "../../support/task_start.ts";
import { assertEquals } from "../../support/assert.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { readTopicWithKcat } from "../../support/kafka_helpers.ts";
import { sourceConnectorConfig } from "../../support/source_connector.ts";
import { waitFor } from "../../support/wait.ts";
import type { SourceOffsetEntry } from "../../../src/connect/task_api.ts";
import { analyzeConnector } from "../../../src/config/connector_config.ts";
import { CONNECTOR_PLUGINS } from "../../../src/daemon/plugins.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { startSimulator } from "../../../src/sim/mod.ts";
import { buildSourceTask } from "../../../src/runtime/source_task/source_task_builder.ts";
import { taskEnvironment } from "../../../src/runtime/task/task_environment.ts";
import type { TaskThreadToMain } from "../../../src/runtime/task/thread_messages.ts";

setLogLevel("error");

const PASSWORD = "pw-Builder-Lark-8";

/** Runs the built task until `done` holds for what it posted, then stops it as the task thread does. */
async function runTask(
  broker: KafkaBroker,
  taskConfig: Record<string, string>,
  offsets: SourceOffsetEntry[],
  done: (posted: TaskThreadToMain[]) => boolean,
): Promise<TaskThreadToMain[]> {
  const posted: TaskThreadToMain[] = [];
  const env = await taskEnvironment(
    startMessage("source", taskConfig, {
      "bootstrap.servers": broker.bootstrapServers,
      "offset.flush.interval.ms": "200",
    }, { offsets }),
    environmentHooks(posted),
  );
  const built = await buildSourceTask(env);
  await built.start();
  const running = built.driver.run();
  try {
    await waitFor(() => done(posted), 60_000, "the task's progress");
  } finally {
    env.stopSignal.abort();
    await running;
    await built.cleanup();
  }
  return posted;
}

const committed = (posted: TaskThreadToMain[]) =>
  posted.flatMap((m) => m.type === "offsets" ? m.entries : []).map((e) => ({
    partition: e.partition,
    offset: e.offset!,
  }));

Deno.test({
  name:
    "a built source task sends its table's rows and posts offsets; started from them, it sends only what is new",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await startKafkaBroker();
    const sim = await startSimulator({ seed: { incident: 5 }, users: [`admin:${PASSWORD}`] });
    try {
      const topic = uniqueName("builder");
      await broker.createTopic(topic, 1);
      const connector = asStrings(
        sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
          name: "builder-test",
          "svc.source.poll.interval.ms": 200,
        }),
      );
      const plugin = CONNECTOR_PLUGINS.find((p) => p.kind === "source")!;
      const [taskConfig] = plugin.taskConfigs(
        connector,
        analyzeConnector(connector, { worker: {} }).values,
        1,
      );

      const sent = () => readTopicWithKcat(broker.bootstrapServers, topic);
      const first = await runTask(broker, taskConfig, [], (posted) => committed(posted).length > 0);
      await waitFor(async () => (await sent()).length >= 5 && true, 30_000, "five records");
      assertEquals(new Set((await sent()).map((r) => r.key)).size, 5, "one record per row");

      // Started again from the last offset posted (the start message's), with one new row: only that row is sent.
      const last = committed(first).at(-1)!;
      sim.table("incident").insert({ short_description: "new since" });
      await runTask(broker, taskConfig, [last], (posted) => committed(posted).length > 0);
      const after = await sent();
      assertEquals(after.length, 6, "the five rows are not sent again");
      assertEquals(new Set(after.map((r) => r.key)).size, 6);
    } finally {
      await sim.stop();
    }
  },
});
