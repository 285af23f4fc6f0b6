/// <reference lib="deno.worker" />
/**
 * The entry point of a task's Web Worker. It receives a `start` message with the task config, resolves its
 * placeholders (so secrets are registered for redaction in this realm), builds the converters, transforms,
 * Kafka clients and error handler, and runs the source or sink driver until told to stop or until it fails.
 *
 * Failures never escape the worker as uncaught errors: they are reported as a FAILED state with a trace.
 */
import type { MainToWorker, StartMessage, WorkerToMain } from "./worker_protocol.ts";
import { logger, setLogLevel } from "../observability/log.ts";
import { redact } from "../observability/redact.ts";
import { MetricsRegistry } from "../observability/metrics.ts";
import { analyzeWorker, workerStrings } from "../config/worker_config.ts";
import { analyzeConnector } from "../config/connector_config.ts";
import { errorLines } from "../config/analyze.ts";
import { importPermitPools, type PermitPoolTransfer } from "../instance/permit_registry.ts";
import {
  createKafka,
  type KafkaClient,
  kafkaOptionsFromProperties,
  stripPrefix,
  TopicCreationUnsupportedError,
} from "../kafka/mod.ts";
import type { Producer } from "../kafka/mod.ts";
import { createTaskConverters } from "../connect/converters/factory.ts";
import { buildTransformChain } from "../connect/transforms/chain.ts";
import type { SinkTaskContext, SourceTaskContext, TaskMetrics } from "../connect/task_api.ts";
import type { SinkRecord, SourceRecord } from "../connect/record.ts";
import { ErrorHandler, errorHandlingConfig } from "./errors/error_handler.ts";
import { DeadLetterQueue } from "./errors/dead_letter_queue.ts";
import type { RecordConverters } from "./record_bytes.ts";
import { SourceDriver } from "./source_driver.ts";
import { SinkDriver } from "./sink_driver.ts";
import { canonicalJson } from "./offsets/offset_key.ts";
import { topicCreationEnabled, topicCreationFor } from "./topic_creation.ts";
import { newTask } from "./task_factories.ts";
import { sinkGroupOf } from "./sink_group.ts";
import { splitList } from "../config/coerce.ts";
import { startCpuProfileFromEnv } from "../observability/cpu_profile.ts";

const METRICS_INTERVAL_MS = 2000;

function post(message: WorkerToMain): void {
  self.postMessage(message);
}

/** A trace for the REST status: the error, then its causes. */
export function traceOf(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const err = e as Error;
    parts.push(
      depth === 0 ? (err.stack ?? `${err.name}: ${err.message}`) : `Caused by: ${err.stack ?? err.message}`,
    );
    e = err.cause;
  }
  return redact(parts.join("\n"));
}

let driver: SourceDriver | SinkDriver | null = null;
let pauseWanted = false;
let running: Promise<void> | null = null;
let cleanup: (() => Promise<void>) | null = null;
let metrics = new MetricsRegistry();
let metricsTimer: ReturnType<typeof setInterval> | undefined;

self.onmessage = (event: MessageEvent<MainToWorker>) => {
  const message = event.data;
  switch (message.type) {
    case "start":
      start(message).catch((e) => fail(e));
      break;
    // A pause or resume that arrives while the task is still starting is applied once the driver exists.
    case "pause":
      pauseWanted = true;
      if (driver) {
        driver.pause();
        post({ type: "state", state: "PAUSED" });
      }
      break;
    case "resume":
      pauseWanted = false;
      if (driver) {
        driver.resume();
        post({ type: "state", state: "RUNNING" });
      }
      break;
    case "stop":
      stop(message.timeoutMs);
      break;
  }
};

function taskMetrics(): TaskMetrics {
  return {
    increment: (name, labels = {}, by = 1) => metrics.increment(name, labels, by),
    set: (name, labels, value) => metrics.set(name, labels, value),
  };
}

async function start(msg: StartMessage): Promise<void> {
  startCpuProfileFromEnv(`task-${msg.connectorName}-${msg.taskId}`);
  pauseWanted = msg.paused;
  setLogLevel(msg.logLevel);
  importPermitPools(msg.permitPools as PermitPoolTransfer);
  const log = logger("task", { connector: msg.connectorName, task: msg.taskId });
  metrics = new MetricsRegistry();
  metricsTimer = setInterval(
    () => post({ type: "metrics", snapshot: metrics.snapshot() }),
    METRICS_INTERVAL_MS,
  );

  const workerAnalysis = analyzeWorker(msg.workerConfig);
  const worker = workerStrings(workerAnalysis);
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
  const kafka: KafkaClient = createKafka(kafkaOptions.connection, {
    log,
    onConsumerCrash: (error) =>
      fail(new Error(`the Kafka consumer stopped: ${error.message}`, { cause: error })),
  });
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
  const sourceTransforms = () => buildTransformChain<SourceRecord>(config);
  const sinkTransforms = () => buildTransformChain<SinkRecord>(config);
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
  const stopSignal = new AbortController();
  const errors = new ErrorHandler(errorHandlingConfig(props), {
    logger: log,
    dlq,
    metrics,
    signal: stopSignal.signal,
    taskLabel: `${msg.connectorName}-${msg.taskId}`,
  });

  if (msg.kind === "source") {
    const task = newTask("source");
    const producer: Producer = await kafka.producer(kafkaOptions.producer, { ownThread: true });
    const admin = await kafka.admin();
    const offsets = new Map(msg.offsets.map((e) => [canonicalJson(e.partition), e.offset]));
    const context: SourceTaskContext = {
      connectorName: msg.connectorName,
      taskId: msg.taskId,
      logger: log,
      metrics: taskMetrics(),
      signal: stopSignal.signal,
      offset: (partition) => (offsets.get(canonicalJson(partition)) ?? null) as never,
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
    };
    const creationWanted = topicCreationEnabled(config) && worker["topic.creation.enable"] !== "false";
    const source = new SourceDriver({
      task,
      producer,
      converters,
      transforms: sourceTransforms(),
      errors,
      logger: log,
      metrics,
      commitOffsets: (entries) => post({ type: "offsets", entries }),
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
    stopSignal.signal.addEventListener("abort", () => source.stop());
    driver = source;
    await task.start(config, props, context);
    cleanup = async () => {
      await task.stop().catch((e) => log.warn({ err: e }, "task stop failed"));
      await producer.close().catch(() => {});
      await admin.close().catch(() => {});
      await dlq?.close().catch(() => {});
    };
  } else {
    const task = newTask("sink");
    let sinkDriver: SinkDriver | null = null;
    const context: SinkTaskContext = {
      connectorName: msg.connectorName,
      taskId: msg.taskId,
      logger: log,
      metrics: taskMetrics(),
      signal: stopSignal.signal,
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
    const sink = new SinkDriver({
      task,
      kafka,
      subscription: topics.length > 0
        ? { topics }
        : { pattern: new RegExp(`^(?:${config["topics.regex"]})$`) },
      groupId: sinkGroupOf(config),
      consumerOptions: kafkaOptions.consumer,
      converters,
      transforms: sinkTransforms(),
      errors,
      logger: log,
      metrics,
      commitIntervalMs: Number(worker["offset.flush.interval.ms"]),
    });
    stopSignal.signal.addEventListener("abort", () => sink.stop());
    sinkDriver = sink;
    driver = sink;
    await task.start(config, props, context);
    cleanup = async () => {
      await task.stop().catch((e) => log.warn({ err: e }, "task stop failed"));
      await dlq?.close().catch(() => {});
    };
  }

  if (pauseWanted) driver.pause();
  post({ type: "state", state: pauseWanted ? "PAUSED" : "RUNNING" });
  running = driver.run();
  stopOn = stopSignal;
  running.catch((e) => fail(e));
}

let stopOn: AbortController | null = null;
let finished = false;

async function stop(timeoutMs: number): Promise<void> {
  stopping = true;
  stopOn?.abort();
  driver?.stop();
  if (running) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      running.catch(() => {}),
      // Leave a fifth of the budget for closing the task and the producers before the main thread terminates us.
      new Promise((resolve) => timer = setTimeout(resolve, timeoutMs * 0.8)),
    ]);
    clearTimeout(timer);
  }
  await cleanup?.();
  finish();
}

let stopping = false;

function fail(error: unknown): void {
  if (finished) return;
  if (stopping) {
    // An error while asked to stop (an abandoned retry, a closing client) is not a task failure.
    logger("task").warn({ err: error }, "error while stopping the task");
    return;
  }
  post({ type: "state", state: "FAILED", trace: traceOf(error) });
  stopOn?.abort();
  cleanup?.().finally(() => finish(traceOf(error)));
}

function finish(trace?: string): void {
  if (finished) return;
  finished = true;
  clearInterval(metricsTimer);
  post({ type: "metrics", snapshot: metrics.snapshot() });
  post({ type: "stopped", trace });
}
