/**
 * A source task in its task thread: the connector's task, a producer, the committed offsets it resumes from, bad rows
 * reported through the error handler, topics created on first use when `topic.creation.*` allows it (else left to
 * the broker's auto-creation), and each topic's retention checked against the records' timestamps.
 */
import type { Producer } from "../../kafka/mod.ts";
import { buildTransformChain } from "../../connect/transforms/chain.ts";
import type { SourceTaskContext } from "../../connect/task_api.ts";
import type { SourceRecord } from "../../connect/record.ts";
import { SourceDriver } from "./source_driver.ts";
import { canonicalJson } from "../offsets/offset_key.ts";
import { topicCreationEnabled } from "./topic_creation.ts";
import { ensureSourceTopic } from "./source_topics.ts";
import { TopicRetention } from "./topic_retention.ts";
import { newTask } from "../task/task_factories.ts";
import { setUpExactlyOnce } from "./exactly_once_task.ts";
import type { BuiltTask, TaskEnvironment } from "../task/task_environment.ts";
import { openStateTopic } from "./state_topic_store.ts";
import { readTopicValues } from "./topic_values_reader.ts";

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
    taskWarnings: env.warnings,
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
    stateTopic: (name, partitions) => openStateTopic(kafka, producer, name, partitions, log),
    readTopicValues: (topic, visit) => readTopicValues(kafka, env.converters, topic, visit),
  };
  const creationWanted = topicCreationEnabled(config) && worker["topic.creation.enable"] !== "false";
  const retention = new TopicRetention({
    describe: (t) => admin.topicConfigs(t),
    warnings: env.warnings,
    log,
  });
  const driver = new SourceDriver({
    task,
    producer,
    converters: env.converters,
    transforms: buildTransformChain<SourceRecord>(config),
    errors,
    logger: log,
    metrics: env.metrics,
    onTopic: (topic) => env.activeTopics.use(topic),
    commitOffsets: (entries, committed) => env.post({ type: "offsets", entries, committed }),
    transactions: exactlyOnce?.transactions,
    ensureTopic: async (topic) => {
      await ensureSourceTopic(topic, { admin, config, creationWanted, log, signal: stopSignal.signal });
      await retention.watch(topic);
    },
    checkRecordTime: (topic, timestamp) => retention.check(topic, timestamp),
  });
  stopSignal.signal.addEventListener("abort", () => driver.stop());
  return {
    driver,
    start: () => task.start(config, props, context),
    reconcile: (alias) => task.reconcileNow?.(alias),
    snapshot: (alias, request) => task.snapshotNow?.(alias, request),
    cleanup: async () => {
      await task.stop().catch((e) => log.warn({ err: e }, "task stop failed"));
      retention.close();
      await producer.close().catch(() => {});
      await exactlyOnce?.transactions.close().catch(() => {});
      await admin.close().catch(() => {});
      await dlq?.close().catch(() => {});
    },
  };
}
