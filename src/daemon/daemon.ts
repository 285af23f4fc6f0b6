/**
 * The daemon: loads the config file, opens the offset store and the worker's Kafka client, starts the REST API
 * and the herder, and shuts down gracefully on SIGTERM or SIGINT (stop polling, finish in-flight work, flush
 * producers, commit offsets, exit 0). A second signal exits at once.
 */
import { loadConfigFile } from "../config/load.ts";
import { analyzeWorker, workerStrings } from "../config/worker_config.ts";
import { errorLines } from "../config/analyze.ts";
import { type LogFormat, logger, type LogLevel, setLogFormat, setLogLevel } from "../observability/log.ts";
import { MetricsRegistry } from "../observability/metrics.ts";
import { createKafka, kafkaOptionsFromProperties } from "../kafka/mod.ts";
import { createOffsetStore } from "../runtime/offsets/factory.ts";
import { ConnectorStateStore } from "../runtime/herder/connector_state_store.ts";
import { ZombieFencing } from "../runtime/herder/zombie_fencing.ts";
import { exactlyOnceEnabled } from "../config/exactly_once_rules.ts";
import { Herder } from "../runtime/herder.ts";
import { CONNECTOR_PLUGINS } from "./plugins.ts";
import { type RestServer, startRestServer } from "../rest/server.ts";
import { renderDaemonMetrics } from "./daemon_metrics.ts";
import { ThroughputHistory } from "../rest/ui_history.ts";
import { throughputCounts } from "../rest/ui_model.ts";
import { sampleEventLoopDelay } from "../observability/event_loop_delay.ts";
import { recordRequestDurationsIn } from "../instance/instance_metrics.ts";
import { VERSION } from "../version.ts";
import { startCpuProfileFromEnv } from "../observability/cpu_profile.ts";
import { startMemoryTraceFromEnv } from "../observability/memory_trace.ts";
import { tuneNativeMemory } from "./native_memory.ts";
import { type GroupStores, startGroupStores } from "../runtime/group/group_stores.ts";
import { DaemonReadiness, KafkaReachability } from "./readiness.ts";
import { connectLevel, parseConnectLevel, setWorkerLoggerLevel } from "../runtime/herder/logger_levels.ts";
import { checkConfigFile } from "../config/file_checks.ts";
import { waitForKafka } from "./kafka_wait.ts";

const log = logger("daemon");

export class DaemonStartError extends Error {
  override name = "DaemonStartError";
}

export interface RunningDaemon {
  herder: Herder;
  rest: RestServer[];
  /** Graceful shutdown; resolves when everything is flushed and closed. */
  shutdown(): Promise<void>;
  /** Resolves when the daemon has shut down (after a signal or `shutdown()`). */
  done: Promise<void>;
}

/** How long to wait for the Kafka cluster at start before giving up with a clear error. */
const KAFKA_START_TIMEOUT_MS = 30_000;

export interface StartOptions {
  /** Aborts the start while it waits for Kafka (a signal during start). */
  signal?: AbortSignal;
  /** One line per distinct reason while Kafka cannot be reached (default: logged as a warning). */
  onKafkaWaiting?: (line: string) => void;
}

export async function startDaemon(configPath: string, options: StartOptions = {}): Promise<RunningDaemon> {
  startCpuProfileFromEnv("main");
  startMemoryTraceFromEnv("main");
  // TABLESYNC_NATIVE_MEMORY=default leaves glibc's own behaviour (for comparing; see docs/performance.md).
  if (envOrUndefined("TABLESYNC_NATIVE_MEMORY") !== "default") tuneNativeMemory();
  const config = await loadConfigFile(configPath);
  const worker = analyzeWorker(config.worker);
  const file = checkConfigFile(config, worker);
  const problems = [...file.errors, ...errorLines(worker)];
  if (problems.length > 0) {
    throw new DaemonStartError(`invalid config in ${configPath}:\n${problems.join("\n")}`);
  }
  setLogFormat(worker.values["log.format"] as LogFormat);
  setLogLevel(worker.values["log.level"] as LogLevel);
  for (const warning of file.warnings) log.warn(warning);
  const strings = workerStrings(worker);

  // The listeners open first, so /health and /ready answer (503, saying why) while the worker starts.
  const readiness = new DaemonReadiness();
  const rest: RestServer[] = [];
  const tls = await listenerTls(worker.values);
  for (const listener of worker.values["listeners"] as string[]) {
    rest.push(
      await startRestServer({
        listener,
        authToken: worker.values["rest.auth.token"] as string | null,
        tls,
        maxBodyBytes: worker.values["rest.request.max.bytes"] as number,
        topicTracking: {
          enabled: worker.values["topic.tracking.enable"] as boolean,
          allowReset: worker.values["topic.tracking.allow.reset"] as boolean,
        },
        probes: readiness,
      }).catch(async (e) => {
        await Promise.all(rest.map((r) => r.close().catch(() => {})));
        throw e;
      }),
    );
  }
  // The worker id is the first listener's host:port (with the real port when it was 0).
  const workerId = new URL(rest[0].url).host;
  try {
    return await startWorker(config, worker, strings, { rest, readiness, workerId }, options);
  } catch (e) {
    await readiness.close();
    await Promise.all(rest.map((r) => r.close().catch(() => {})));
    throw e;
  }
}

interface Listening {
  rest: RestServer[];
  readiness: DaemonReadiness;
  workerId: string;
}

/** Everything after the listeners: Kafka, offsets, the worker group, the herder and its connectors. */
async function startWorker(
  config: Awaited<ReturnType<typeof loadConfigFile>>,
  worker: ReturnType<typeof analyzeWorker>,
  strings: Record<string, string>,
  { rest, readiness, workerId }: Listening,
  options: StartOptions,
): Promise<RunningDaemon> {
  const values = worker.values;
  const connection = (await kafkaOptionsFromProperties(strings)).connection;
  const kafka = createKafka(connection);
  readiness.watchKafka(new KafkaReachability(kafka, strings["bootstrap.servers"]));
  // In a worker group /ready names the group check from the start: not ready until this member holds an assignment.
  let groupJoined = () => false;
  if (values["group.id"]) readiness.watchGroup(() => groupJoined());
  readiness.stage = `waiting for Kafka at ${strings["bootstrap.servers"]}`;
  // The wait says why in one line per reason; its own client logs kafkajs's retries only at debug.
  const kafkaLog = logger("kafka");
  const waitLog = kafkaLog.isLevelEnabled("debug") ? kafkaLog : kafkaLog.child({}, { level: "error" });
  const clusterId = await waitForKafka(createKafka(connection, { log: waitLog }), {
    timeoutMs: KAFKA_START_TIMEOUT_MS,
    signal: options.signal,
    onWaiting: options.onKafkaWaiting ?? ((line) => log.warn(line)),
  });

  readiness.stage = "opening the offset and config stores";
  const offsets = createOffsetStore(values, { kafka });
  await offsets.start();
  // Group mode (group.id): configs and statuses live in topics shared by every member; else in local files.
  const group: GroupStores | null = values["group.id"]
    ? await startGroupStores(values, kafka, offsets, () => workerId)
    : null;
  let stateStore: ConnectorStateStore | undefined;
  if (!group) {
    stateStore = new ConnectorStateStore(values["config.storage.file.filename"] as string);
    await stateStore.load();
  }

  const fencing = exactlyOnceEnabled(strings)
    ? new ZombieFencing({
      kafka: () => Promise.resolve(kafka),
      records: group?.config ?? stateStore!,
      groupId: strings["group.id"],
      runsRounds: group ? (connector) => group.members.ownsConnector(connector) : () => true,
    })
    : undefined;
  const processMetrics = new MetricsRegistry();
  recordRequestDurationsIn(processMetrics);
  const stopLoopSampler = sampleEventLoopDelay(processMetrics);
  const herder = new Herder({
    workerRaw: worker.original,
    workerStrings: strings,
    workerId,
    offsets,
    stateStore: group?.config ?? stateStore!,
    placement: group?.members.placement,
    plugins: CONNECTOR_PLUGINS,
    kafka: () => Promise.resolve(kafka),
    gracefulTimeoutMs: values["task.shutdown.graceful.timeout.ms"] as number,
    fencing,
  });
  const uiHistory = new ThroughputHistory(() => throughputCounts(herder));
  const stopUiHistory = uiHistory.start();
  const clusterLoggerLevel = group
    ? (name: string, level: LogLevel) => group.config.requestLoggerLevel(name, connectLevel(level))
    : undefined;
  for (const r of rest) {
    r.serve({
      herder,
      kafkaClusterId: clusterId,
      metrics: () => renderDaemonMetrics(herder, processMetrics),
      clusterLoggerLevel,
      uiHistory,
    });
  }
  readiness.stage = "starting connectors";
  await herder.start(config.connectors);
  if (group) {
    // Cluster-wide logger levels written from now on (by any member) apply here too.
    group.config.onLoggerLevel((name, raw) => {
      const level = parseConnectLevel(raw);
      if (level) setWorkerLoggerLevel(name, level, herder.allTasks().map((t) => t.task));
      else log.warn({ logger: name, level: raw }, "ignoring a cluster-wide logger level that is not a level");
    });
    readiness.stage = "joining the worker group";
    groupJoined = () => group.members.joined;
    await group.members.start(herder);
  }
  readiness.started();
  log.info(
    { version: VERSION, connectors: herder.names().length, rest: rest.map((r) => r.url) },
    "tablesync started",
  );

  const { promise: done, resolve: resolveDone } = Promise.withResolvers<void>();
  let shuttingDown: Promise<void> | null = null;
  const shutdown = () => {
    shuttingDown ??= (async () => {
      readiness.stopping();
      log.info("shutting down: stopping tasks, flushing and committing offsets");
      await herder.shutdown();
      // Leave the group only once every task stopped and committed, so no successor overlaps with them.
      await group?.close().catch((e) => log.error({ err: e }, "leaving the worker group failed"));
      await offsets.close().catch((e) => log.error({ err: e }, "offsets could not be written at shutdown"));
      await readiness.close();
      await Promise.all(rest.map((r) => r.close().catch(() => {})));
      stopUiHistory();
      stopLoopSampler();
      log.info("tablesync stopped");
      resolveDone();
    })();
    return shuttingDown;
  };
  return { herder, rest, shutdown, done };
}

async function listenerTls(
  values: Record<string, unknown>,
): Promise<{ cert: string; key: string } | undefined> {
  const certPath = values["listeners.https.ssl.certificate.location"] as string | null;
  const keyPath = values["listeners.https.ssl.key.location"] as string | null;
  if (!certPath || !keyPath) return undefined;
  return { cert: await Deno.readTextFile(certPath), key: await Deno.readTextFile(keyPath) };
}

function envOrUndefined(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // no env permission
  }
}
