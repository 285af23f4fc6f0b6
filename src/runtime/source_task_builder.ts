/**
 * A source task in its worker: the connector's task, a producer, the committed offsets it resumes from, bad rows
 * reported through the error handler, and topics created on first use when `topic.creation.*` allows it.
 */
import type { Producer } from "../kafka/mod.ts";
import { TopicCreationUnsupportedError } from "../kafka/mod.ts";
import { buildTransformChain } from "../connect/transforms/chain.ts";
import type { SourceTaskContext } from "../connect/task_api.ts";
import type { SourceRecord } from "../connect/record.ts";
import { SourceDriver } from "./source_driver.ts";
import { canonicalJson } from "./offsets/offset_key.ts";
import { topicCreationEnabled, topicCreationFor } from "./topic_creation.ts";
import { newTask } from "./task_factories.ts";
import { setUpExactlyOnce } from "./exactly_once_task.ts";
import type { BuiltTask, TaskEnvironment } from "./task_environment.ts";

export async function buildSourceTask(env: TaskEnvironment): Promise<BuiltTask> {
  const { msg, log, config, props, kafka, kafkaOptions, errors, dlq, worker, stopSignal } = env;
  const task = newTask("source");
  // In this thread: a producer thread of its own cost an isolate (~40 MB) and measured no faster (docs/performance.md).
  const producer: Producer = await kafka.producer(kafkaOptions.producer);
  const admin = await kafka.admin();
  // Exactly-once: fence the task's earlier owners, then read the offsets of their last committed transaction.
  const exactlyOnce = await setUpExactlyOnce(env);
  const startOffsets = exactlyOnce?.offsets ?? msg.offsets;
  const offsets = new Map(startOffsets.map((e) => [canonicalJson(e.partition), e.offset]));
  const context: SourceTaskContext = {
    connectorName: msg.connectorName,
    taskId: msg.taskId,
    logger: log,
    metrics: env.taskMetrics,
    signal: stopSignal.signal,
    offset: (partition) => offsets.get(canonicalJson(partition)) ?? null,
    reportBadRow: async (error, details) => {
      const encode = (v: unknown) =>
        v === null || v === undefined
          ? null
          : new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));
      await errors.handleFailure("TASK_POLL", error, {
        executingClass: "io.tablesync.TableSourceTask",
        describe: () => `row of topic ${details.topic} with key ${details.key ?? "(none)"}`,
        failedRecord: () => ({ key: encode(details.key), value: encode(details.value) }),
      }, true);
    },
    reportProgress: (tables) => env.post({ type: "progress", tables }),
  };
  const creationWanted = topicCreationEnabled(config) && worker["topic.creation.enable"] !== "false";
  const driver = new SourceDriver({
    task,
    producer,
    converters: env.converters,
    transforms: buildTransformChain<SourceRecord>(config),
    errors,
    logger: log,
    metrics: env.metrics,
    commitOffsets: (entries, committed) => env.post({ type: "offsets", entries, committed }),
    transactions: exactlyOnce?.transactions,
    ensureTopic: async (topic) => {
      if (await admin.topicExists(topic)) return;
      if (!creationWanted) {
        throw new Error(
          `topic ${topic} does not exist: create it, or set topic.creation.default.partitions and topic.creation.default.replication.factor so the connector creates it`,
        );
      }
      const settings = topicCreationFor(config, topic);
      try {
        await admin.createTopic(topic, settings);
        log.info({ topic, group: settings.group }, `created topic ${topic}`);
      } catch (e) {
        if (e instanceof TopicCreationUnsupportedError) {
          throw new Error(
            `topic ${topic} does not exist and this cluster cannot create it through the API: create it yourself`,
            { cause: e },
          );
        }
        throw e;
      }
    },
  });
  stopSignal.signal.addEventListener("abort", () => driver.stop());
  return {
    driver,
    start: () => task.start(config, props, context),
    cleanup: async () => {
      await task.stop().catch((e) => log.warn({ err: e }, "task stop failed"));
      await producer.close().catch(() => {});
      await exactlyOnce?.transactions.close().catch(() => {});
      await admin.close().catch(() => {});
      await dlq?.close().catch(() => {});
    },
  };
}
