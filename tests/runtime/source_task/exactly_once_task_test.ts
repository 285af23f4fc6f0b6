/**
 * The set-up of an exactly-once source task (src/runtime/source_task/exactly_once_task.ts) against the real
 * broker: nothing when the worker does not enable it; otherwise the task's transactional producer fences an
 * earlier owner of its id, and the committed offsets come from the connector's own offsets topic first, then
 * the worker's for partitions the former lacks.
 */
import { asStrings, environmentHooks, kafkaClient, startMessage } from "../../support/task_start.ts";
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { sourceConnectorConfig } from "../../support/source_connector.ts";
import { ProducerFencedError } from "../../../src/kafka/mod.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { createOffsetStore } from "../../../src/runtime/offsets/factory.ts";
import { setUpExactlyOnce } from "../../../src/runtime/source_task/exactly_once_task.ts";
import { taskEnvironment } from "../../../src/runtime/task/task_environment.ts";

setLogLevel("error");

// Unique, so that the transactional id (`tablesync-<connector>-0` standalone) is this run's alone.
const CONNECTOR = uniqueName("eos-setup");
const SOURCE = asStrings(
  sourceConnectorConfig("http://127.0.0.1:1", "pw-Eos-Heron-7", { incident: "eos.incident" }),
);

function environment(workerConfig: Record<string, string>, taskConfig: Record<string, string> = {}) {
  return taskEnvironment(
    startMessage("source", { name: CONNECTOR, ...SOURCE, ...taskConfig }, workerConfig),
    environmentHooks(),
  );
}

/** Writes the connector's offsets of `tables` (partition {table}, offset {at}) to an offsets topic. */
async function storeOffsets(broker: KafkaBroker, topic: string, entries: Record<string, string>) {
  const kafka = kafkaClient(broker.bootstrapServers);
  const store = createOffsetStore({ "offset.storage.topic": topic }, { kafka });
  await store.start();
  store.set(
    CONNECTOR,
    Object.entries(entries).map(([table, at]) => ({ partition: { table }, offset: { at } })),
  );
  await store.close();
}

Deno.test("without exactly.once.source.support=enabled a source task is not set up for exactly-once", async () => {
  const env = await environment({ "bootstrap.servers": "127.0.0.1:1" });
  assertEquals(await setUpExactlyOnce(env), null);
});

Deno.test({
  name:
    "an exactly-once task reads its connector's own offsets topic first, then the worker's; its producer fences the earlier owner",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await startKafkaBroker();
    const [workerTopic, ownTopic] = [uniqueName("eos-offsets"), uniqueName("eos-own-offsets")];
    for (const topic of [workerTopic, ownTopic]) {
      await broker.createTopic(topic, 1, 1, { "cleanup.policy": "compact" });
    }
    await storeOffsets(broker, workerTopic, { incident: "worker-1", problem: "worker-2" });
    await storeOffsets(broker, ownTopic, { incident: "own-1" });
    const worker = {
      "bootstrap.servers": broker.bootstrapServers,
      "exactly.once.source.support": "enabled",
      "offset.storage.topic": workerTopic,
    };
    const first = await setUpExactlyOnce(await environment(worker, { "offsets.storage.topic": ownTopic }));
    assert(first !== null, "set up");
    const byTable = Object.fromEntries(
      first.offsets.map((e) => [(e.partition as { table: string }).table, (e.offset as { at: string }).at]),
    );
    assertEquals(byTable, { incident: "own-1", problem: "worker-2" });

    // The same task id set up again (the task moved): the first producer is fenced.
    const second = await setUpExactlyOnce(await environment(worker, { "offsets.storage.topic": ownTopic }));
    assert(second !== null, "set up again");
    const update = [{ partition: { table: "incident" }, offset: { at: "own-2" } }];
    await assertRejects(() => first.transactions.commit(update), ProducerFencedError);
    await second.transactions.commit(update);
    await Promise.all([first.transactions.close().catch(() => {}), second.transactions.close()]);
  },
});
