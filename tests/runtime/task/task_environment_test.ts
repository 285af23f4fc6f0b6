/**
 * What a task thread builds its task from (src/runtime/task/task_environment.ts): Kafka Connect's override order
 * for the task's Kafka client (worker key, the worker's `producer.`/`consumer.` key, the connector's
 * `*.override.`), converters from the connector over the worker's, an invalid config refused with every problem,
 * and a sink's dead letter queue topic created on the real broker.
 */
import { asStrings, environmentHooks, startMessage } from "../../support/task_start.ts";
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { sinkConnectorConfig } from "../../support/sink_connector.ts";
import { sourceConnectorConfig } from "../../support/source_connector.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { taskEnvironment } from "../../../src/runtime/task/task_environment.ts";
import type { TaskThreadToMain } from "../../../src/runtime/task/thread_messages.ts";

setLogLevel("error");

function start(
  kind: "source" | "sink",
  taskConfig: Record<string, string>,
  workerConfig: Record<string, string>,
) {
  const posted: TaskThreadToMain[] = [];
  const msg = startMessage(kind, { name: "env-test", ...taskConfig }, workerConfig);
  return { msg, hooks: environmentHooks(posted), posted };
}

const SOURCE = asStrings(
  sourceConnectorConfig("http://127.0.0.1:1", "pw-Env-Otter-1", { incident: "env.incident" }),
);
const SINK = asStrings(sinkConnectorConfig("http://127.0.0.1:1", "pw-Env-Otter-1", { topics: "env.in" }));

Deno.test("a task's Kafka settings: the connector's override over the worker's client prefix over the worker key", async () => {
  const worker = { "bootstrap.servers": "127.0.0.1:1", "linger.ms": "5", "producer.linger.ms": "7" };
  const overridden = start("source", { ...SOURCE, "producer.override.linger.ms": "9" }, worker);
  const env = await taskEnvironment(overridden.msg, overridden.hooks);
  assertEquals(env.kafkaOptions.producer.lingerMs, 9);

  const fromWorkerPrefix = start("source", SOURCE, worker);
  assertEquals(
    (await taskEnvironment(fromWorkerPrefix.msg, fromWorkerPrefix.hooks)).kafkaOptions.producer.lingerMs,
    7,
  );

  // A sink's client is a consumer: the worker's `producer.` keys are not its own.
  const sink = start("sink", SINK, worker);
  assertEquals((await taskEnvironment(sink.msg, sink.hooks)).kafkaOptions.producer.lingerMs, 5);
});

Deno.test("a task's converters: the connector's class over the worker's", async () => {
  const worker = {
    "bootstrap.servers": "127.0.0.1:1",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
  };
  const own = start(
    "sink",
    { ...SINK, "value.converter": "org.apache.kafka.connect.json.JsonConverter" },
    worker,
  );
  const env = await taskEnvironment(own.msg, own.hooks);
  assertEquals(env.converters.classes.value, "org.apache.kafka.connect.json.JsonConverter");
  const inherited = start("sink", SINK, worker);
  assertEquals(
    (await taskEnvironment(inherited.msg, inherited.hooks)).converters.classes.value,
    "org.apache.kafka.connect.storage.StringConverter",
  );
});

Deno.test("an invalid task config is refused naming the key", async () => {
  const bad = start("sink", { ...SINK, "errors.tolerance": "some" }, {
    "bootstrap.servers": "127.0.0.1:1",
  });
  const error = await assertRejects(() => taskEnvironment(bad.msg, bad.hooks));
  assert(error.message.startsWith("task config is invalid:"), error.message);
  assert(error.message.includes("errors.tolerance"), error.message);
});

Deno.test({
  name: "a sink's dead letter queue topic is created on the broker when missing",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await startKafkaBroker();
    const dlqTopic = uniqueName("env-dlq");
    const task = start("sink", {
      ...SINK,
      "errors.tolerance": "all",
      "errors.deadletterqueue.topic.name": dlqTopic,
      "errors.deadletterqueue.topic.replication.factor": "1",
    }, { "bootstrap.servers": broker.bootstrapServers });
    const env = await taskEnvironment(task.msg, task.hooks);
    assert(env.dlq !== null, "a dead letter queue");
    const admin = await env.kafka.admin();
    try {
      assert(await admin.topicExists(dlqTopic), `${dlqTopic} exists`);
    } finally {
      await admin.close();
    }
  },
});
