/**
 * A sink task in its task thread: the connector's task behind a consumer of the connector's group (`connect-<name>`
 * unless overridden), with failed records reported through the error handler with their original bytes.
 */
import { buildTransformChain } from "../../connect/transforms/chain.ts";
import type { SinkTaskContext } from "../../connect/task_api.ts";
import type { SinkRecord } from "../../connect/record.ts";
import { splitList } from "../../config/coerce.ts";
import { SinkDriver } from "./sink_driver.ts";
import { newTask } from "../task/task_factories.ts";
import { sinkGroupOf } from "../../config/sink_group.ts";
import type { BuiltTask, TaskEnvironment } from "../task/task_environment.ts";

export function buildSinkTask(env: TaskEnvironment): BuiltTask {
  const { msg, log, config, props, errors, dlq, stopSignal, abandonSignal } = env;
  const task = newTask("sink");
  let sinkDriver: SinkDriver | null = null;
  const context: SinkTaskContext = {
    connectorName: msg.connectorName,
    taskId: msg.taskId,
    logger: log,
    metrics: env.taskMetrics,
    signal: stopSignal.signal,
    writeSignal: abandonSignal.signal,
    reportRecordError: async (record, error) => {
      await errors.handleFailure("TASK_PUT", error, {
        executingClass: "io.tablesync.TableSinkTask",
        describe: () =>
          `consumed record is {topic='${record.topic}', partition=${record.kafkaPartition}, offset=${record.kafkaOffset}}`,
        failedRecord: () => {
          const raw = sinkDriver?.rawRecord(
            record.originalTopic,
            record.originalKafkaPartition,
            record.originalKafkaOffset,
          );
          return {
            topic: record.originalTopic,
            partition: record.originalKafkaPartition,
            offset: record.originalKafkaOffset,
            key: raw?.key ?? null,
            value: raw?.value ?? null,
            headers: raw?.headers,
            timestamp: raw?.timestamp,
          };
        },
      }, true);
    },
  };
  const topics = splitList(config["topics"] ?? "");
  const driver = new SinkDriver({
    task,
    kafka: env.kafka,
    subscription: topics.length > 0 ? { topics } : { pattern: new RegExp(`^(?:${config["topics.regex"]})$`) },
    groupId: sinkGroupOf(config),
    consumerOptions: env.kafkaOptions.consumer,
    converters: env.converters,
    transforms: buildTransformChain<SinkRecord>(config),
    errors,
    logger: log,
    metrics: env.metrics,
    onTopic: (topic) => env.activeTopics.use(topic),
    commitIntervalMs: Number(env.worker["offset.flush.interval.ms"]),
    warnings: env.warnings,
  });
  stopSignal.signal.addEventListener("abort", () => driver.stop());
  sinkDriver = driver;
  return {
    driver,
    start: () => task.start(config, props, context),
    cleanup: async () => {
      await task.stop().catch((e) => log.warn({ err: e }, "task stop failed"));
      await dlq?.close().catch(() => {});
    },
  };
}
