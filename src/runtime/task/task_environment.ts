/**
 * What every task thread builds its task from, read from its `start` message: the analysed worker and task configs
 * (placeholders resolved in this realm, so secrets are registered for redaction here), the Kafka client with
 * Kafka Connect's override order, the converters, the error handler and the dead letter queue. The source and
 * sink builders (source_task_builder.ts, sink_task_builder.ts) take it from there.
 */
import type { RawConfig, TypedProps } from "../../common/props.ts";
import { analyzeWorker, taskWorkerStrings } from "../../config/worker_config.ts";
import { analyzeConnector } from "../../config/connector_config.ts";
import { errorLines } from "../../config/analyze.ts";
import {
  createKafka,
  DEFAULT_PRODUCER_OPTIONS,
  type KafkaClient,
  kafkaOptionsFromProperties,
  stripPrefix,
} from "../../kafka/mod.ts";
import { createTaskConverters, loadTaskConverterPlugins } from "../../connect/converters/factory.ts";
import type { TaskMetrics } from "../../connect/task_api.ts";
import type { Logger } from "../../observability/log.ts";
import type { MetricsRegistry } from "../../observability/metrics.ts";
import { ErrorHandler, errorHandlingConfig } from "../errors/error_handler.ts";
import { DeadLetterQueue, ensureDeadLetterQueueTopic } from "../errors/dead_letter_queue.ts";
import type { RecordConverters } from "./record_bytes.ts";
import type { SinkDriver } from "../sink_task/sink_driver.ts";
import type { SourceDriver } from "../source_task/source_driver.ts";
import type { StartMessage, TaskThreadToMain } from "./thread_messages.ts";
import type { ActiveTopics } from "./active_topics.ts";
import type { SnapshotRequest } from "../../connect/table_progress.ts";
import { TaskWarnings } from "./task_warnings.ts";

export interface TaskEnvironment {
  readonly msg: StartMessage;
  readonly log: Logger;
  readonly metrics: MetricsRegistry;
  readonly taskMetrics: TaskMetrics;
  /** The worker's settings as strings after analysis (defaults applied). */
  readonly worker: Record<string, string>;
  /** The task config, placeholders resolved. */
  readonly config: RawConfig;
  readonly props: TypedProps;
  readonly kafka: KafkaClient;
  readonly kafkaOptions: Awaited<ReturnType<typeof kafkaOptionsFromProperties>>;
  readonly converters: RecordConverters;
  readonly errors: ErrorHandler;
  readonly dlq: DeadLetterQueue | null;
  /** Aborted when the task is asked to stop. */
  readonly stopSignal: AbortController;
  /** Aborted when in-flight instance writes must be abandoned (SinkTaskContext.writeSignal). */
  readonly abandonSignal: AbortController;
  readonly post: (message: TaskThreadToMain) => void;
  /** KIP-558: the drivers record each topic they produce to or consume from. */
  readonly activeTopics: ActiveTopics;
  /** The task's standing warnings (its status `warnings`). */
  readonly warnings: TaskWarnings;
}

/** A built task: its driver, the connector task's start, and what to close when it ends. */
export interface BuiltTask {
  readonly driver: SourceDriver | SinkDriver;
  /** Starts the connector task (the driver exists before, so a pause arriving meanwhile applies to it). */
  readonly start: () => Promise<void>;
  readonly cleanup: () => Promise<void>;
  /** A source task's reconcile pass of one table, started now. */
  readonly reconcile?: (alias: string) => void;
  /** A source task's re-snapshot of one table, started now. */
  readonly snapshot?: (alias: string, request: SnapshotRequest) => void;
}

export interface EnvironmentHooks {
  readonly log: Logger;
  readonly metrics: MetricsRegistry;
  readonly taskMetrics: TaskMetrics;
  readonly post: (message: TaskThreadToMain) => void;
  readonly activeTopics: ActiveTopics;
  /** The Kafka consumer stopped, on a Kafka error or the sink's: the task fails. */
  readonly onConsumerCrash: (error: Error) => void;
}

export async function taskEnvironment(msg: StartMessage, hooks: EnvironmentHooks): Promise<TaskEnvironment> {
  const { log, metrics } = hooks;
  const workerAnalysis = analyzeWorker(msg.workerConfig);
  const worker = taskWorkerStrings(workerAnalysis);
  const analysis = analyzeConnector(msg.taskConfig, { worker });
  const problems = [...errorLines(workerAnalysis), ...errorLines(analysis)];
  if (problems.length > 0) throw new Error(`task config is invalid:\n${problems.join("\n")}`);
  const config = analysis.raw;
  const props = analysis.values;

  // As in Kafka Connect: worker keys, then the worker's `producer.`/`consumer.` keys, then the connector's overrides.
  const client = msg.kind === "source" ? "producer" : "consumer";
  const kafkaOptions = await kafkaOptionsFromProperties({
    ...worker,
    ...stripPrefix(worker, `${client}.`),
    ...stripPrefix(config, `${client}.override.`),
  });
  const warnings = new TaskWarnings((list) => hooks.post({ type: "warnings", warnings: list }), log);
  // Kafka out of reach is shown in the task's status while it lasts, and logged once when it begins and ends.
  const deliveryTimeoutMs = kafkaOptions.producer.deliveryTimeoutMs ??
    DEFAULT_PRODUCER_OPTIONS.deliveryTimeoutMs;
  const kafka: KafkaClient = createKafka(kafkaOptions.connection, {
    log,
    onConsumerCrash: hooks.onConsumerCrash,
    onUnreachable: (sentence) => sentence ? warnings.set("kafka", sentence) : warnings.clear("kafka"),
    retrying: msg.kind === "source"
      ? `each send for up to delivery.timeout.ms=${deliveryTimeoutMs}`
      : "the consumer reconnects until it is back",
  });
  await loadTaskConverterPlugins(config, worker);
  const built = createTaskConverters(config, worker);
  const converters: RecordConverters = {
    key: built.keyConverter,
    value: built.valueConverter,
    header: built.headerConverter,
    classes: {
      key: built.choices.key.className,
      value: built.choices.value.className,
      header: built.choices.header.className,
    },
  };
  const dlqTopic = props["errors.deadletterqueue.topic.name"] as string;
  const dlq = dlqTopic
    ? new DeadLetterQueue({
      topic: dlqTopic,
      contextHeaders: props["errors.deadletterqueue.context.headers.enable"] === true,
      connectorName: msg.connectorName,
      taskId: msg.taskId,
      producer: () => kafka.producer(kafkaOptions.producer),
    })
    : null;
  if (dlqTopic) {
    const admin = await kafka.admin();
    try {
      const rf = props["errors.deadletterqueue.topic.replication.factor"] as number;
      if (await ensureDeadLetterQueueTopic(admin, dlqTopic, rf)) {
        log.info({ topic: dlqTopic }, "created the dead letter queue topic");
      }
    } finally {
      await admin.close();
    }
  }
  const stopSignal = new AbortController();
  const abandonSignal = new AbortController();
  const errors = new ErrorHandler(errorHandlingConfig(props), {
    logger: log,
    dlq,
    metrics,
    signal: stopSignal.signal,
    taskLabel: `${msg.connectorName}-${msg.taskId}`,
  });
  return {
    ...hooks,
    msg,
    worker,
    config,
    props,
    kafka,
    kafkaOptions,
    converters,
    errors,
    dlq,
    stopSignal,
    abandonSignal,
    warnings,
  };
}
