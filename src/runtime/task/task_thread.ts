/// <reference lib="deno.worker" />
/**
 * The entry point of a task thread (the task's Web Worker). It receives a `start` message with the task config, builds the task's
 * environment (task_environment.ts: configs with placeholders resolved in this realm, Kafka client, converters,
 * error handler) and its source or sink driver (source_task_builder.ts, sink_task_builder.ts), and runs the
 * driver until told to stop or until it fails.
 *
 * Failures never escape the task thread as uncaught errors: they are reported as a FAILED state with a trace.
 */
import type { TaskStopBudget } from "../herder/task_stop_budget.ts";
import type { MainToTaskThread, StartMessage, TaskThreadToMain } from "./thread_messages.ts";
import { applyLogSettings, logger } from "../../observability/log.ts";
import { settlesWithin } from "../../common/delay.ts";
import { redact } from "../../observability/redact.ts";
import { MetricsRegistry } from "../../observability/metrics.ts";
import { recordRequestDurationsIn } from "../../instance/instance_metrics.ts";
import { startCpuProfileFromEnv } from "../../observability/cpu_profile.ts";
import { startMemoryTraceFromEnv } from "../../observability/memory_trace.ts";
import { collectWhenQuiet } from "./idle_collection.ts";
import { importPermitPools, type PermitPoolTransfer } from "../../instance/permit_registry.ts";
import { type TaskMetrics, TransientTaskFailure } from "../../connect/task_api.ts";
import type { SourceDriver } from "../source_task/source_driver.ts";
import type { SinkDriver } from "../sink_task/sink_driver.ts";
import { type BuiltTask, taskEnvironment } from "./task_environment.ts";
import { buildSourceTask } from "../source_task/source_task_builder.ts";
import { buildSinkTask } from "../sink_task/sink_task_builder.ts";
import { ActiveTopics } from "./active_topics.ts";
import { isKafkaTransient, isKafkaUnreachable, kafkaUnreachableReason } from "../../kafka/mod.ts";

const METRICS_INTERVAL_MS = 2000;

function post(message: TaskThreadToMain): void {
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
/** Starts a source table's reconcile pass now. */
let reconcile: ((alias: string) => void) | null = null;
/** Starts a source table's re-snapshot. */
let snapshot: BuiltTask["snapshot"] | null = null;
let metrics = new MetricsRegistry();
let metricsTimer: ReturnType<typeof setInterval> | undefined;
const activeTopics = new ActiveTopics((topics) => post({ type: "topics", topics }));

self.onmessage = (event: MessageEvent<MainToTaskThread>) => {
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
      stop(message.budget);
      break;
    case "logSettings":
      applyLogSettings(message.settings);
      break;
    case "resetTopics":
      activeTopics.reset();
      break;
    case "reconcile":
      reconcile?.(message.alias);
      break;
    case "snapshot":
      snapshot?.(message.alias, message.request);
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
  startMemoryTraceFromEnv(`task-${msg.connectorName}-${msg.taskId}`);
  metrics = new MetricsRegistry();
  recordRequestDurationsIn(metrics);
  collectWhenQuiet({ activity: () => metrics.increments });
  pauseWanted = msg.paused;
  applyLogSettings(msg.logSettings);
  importPermitPools(msg.permitPools as PermitPoolTransfer);
  const log = logger("task", { connector: msg.connectorName, task: msg.taskId });
  metricsTimer = setInterval(
    () => post({ type: "metrics", snapshot: metrics.snapshot() }),
    METRICS_INTERVAL_MS,
  );
  const env = await taskEnvironment(msg, {
    log,
    metrics,
    taskMetrics: taskMetrics(),
    post,
    activeTopics,
    // The consumer stops on its own errors and on the sink's (an instance refusing a write, a lookup failing): the
    // message names the cause as it is, without blaming Kafka for the sink's failure.
    onConsumerCrash: (error) => fail(new Error(`consuming stopped: ${error.message}`, { cause: error })),
  });
  const built = msg.kind === "source" ? await buildSourceTask(env) : buildSinkTask(env);
  driver = built.driver;
  await built.start();
  cleanup = built.cleanup;
  reconcile = built.reconcile ?? null;
  snapshot = built.snapshot ?? null;

  if (pauseWanted) driver.pause();
  post({ type: "state", state: pauseWanted ? "PAUSED" : "RUNNING" });
  running = driver.run();
  stopOn = env.stopSignal;
  abandonOn = env.abandonSignal;
  running.catch((e) => fail(e));
}

let stopOn: AbortController | null = null;
/** Abandons in-flight instance writes: late in a graceful stop, at once on a failure. */
let abandonOn: AbortController | null = null;
let finished = false;

/** A graceful stop, within the budget the main thread sent (herder/task_stop_budget.ts says how it is spent). */
async function stop(budget: TaskStopBudget): Promise<void> {
  stopping = true;
  stopOn?.abort();
  driver?.stop();
  const abandon = setTimeout(() => abandonOn?.abort(), budget.abandonWritesAfterMs);
  if (running) await settlesWithin(running.catch(() => {}), budget.awaitDriverMs);
  clearTimeout(abandon);
  abandonOn?.abort();
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
  // The runner terminates a FAILED task thread at once: the metrics that explain the failure go first.
  post({ type: "metrics", snapshot: metrics.snapshot() });
  const transient = error instanceof TransientTaskFailure || isKafkaTransient(error);
  // kafkajs's own error (a task starting while Kafka is away) gets a first line that says what happened.
  const trace = isKafkaUnreachable(error) && /^KafkaJS/.test((error as Error)?.name ?? "")
    ? `Kafka unreachable: ${kafkaUnreachableReason(error)}; the daemon restarts this task\n${traceOf(error)}`
    : traceOf(error);
  post({ type: "state", state: "FAILED", trace, transient });
  stopOn?.abort();
  abandonOn?.abort();
  cleanup?.().finally(() => finish(trace));
}

function finish(trace?: string): void {
  if (finished) return;
  finished = true;
  clearInterval(metricsTimer);
  post({ type: "metrics", snapshot: metrics.snapshot() });
  post({ type: "stopped", trace });
}
