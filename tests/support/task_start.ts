/**
 * What a test of the task-thread side needs to build a task as the runtime does: the `start` message the main
 * thread sends, the hooks the task thread gives the task's environment, and a client of our Kafka layer.
 *
 * ```ts
 * const posted: TaskThreadToMain[] = [];
 * const env = await taskEnvironment(startMessage("sink", config, worker), environmentHooks(posted));
 * ```
 */
import { createKafka, type KafkaClient } from "../../src/kafka/mod.ts";
import { logger, logSettings } from "../../src/observability/log.ts";
import { MetricsRegistry } from "../../src/observability/metrics.ts";
import { ActiveTopics } from "../../src/runtime/task/active_topics.ts";
import type { EnvironmentHooks } from "../../src/runtime/task/task_environment.ts";
import type { StartMessage, TaskThreadToMain } from "../../src/runtime/task/thread_messages.ts";
import type { SourceOffsetEntry } from "../../src/connect/task_api.ts";

/** A connector config as the task thread gets it: every value a string. */
export function asStrings(config: Record<string, string | number | boolean>): Record<string, string> {
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)]));
}

/** The start message of task 0 of connector `taskConfig.name` (else "test"). */
export function startMessage(
  kind: "source" | "sink",
  taskConfig: Record<string, string>,
  workerConfig: Record<string, string>,
  extra: { offsets?: SourceOffsetEntry[]; permitPools?: unknown } = {},
): StartMessage {
  const connectorName = taskConfig.name ?? "test";
  return {
    type: "start",
    kind,
    connectorName,
    taskId: 0,
    taskConfig: { name: connectorName, ...taskConfig },
    workerConfig,
    offsets: extra.offsets ?? [],
    permitPools: extra.permitPools,
    logSettings: logSettings(),
    paused: false,
  };
}

/** The task thread's hooks; what the task posts to the main thread goes into `posted`. */
export function environmentHooks(posted: TaskThreadToMain[] = []): EnvironmentHooks {
  return {
    log: logger("task"),
    metrics: new MetricsRegistry(),
    taskMetrics: { increment: () => {}, set: () => {} },
    post: (message) => posted.push(message),
    activeTopics: new ActiveTopics(() => {}),
    onConsumerCrash: () => {},
  };
}

/** A client of our Kafka layer for the broker at `bootstrapServers`. */
export function kafkaClient(bootstrapServers: string): KafkaClient {
  return createKafka({
    brokers: [bootstrapServers],
    clientId: "t",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
}
