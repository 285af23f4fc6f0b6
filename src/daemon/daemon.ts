/**
 * The daemon: loads the config file, opens the offset store and the worker's Kafka client, starts the REST API
 * and the herder, and shuts down gracefully on SIGTERM or SIGINT (stop polling, finish in-flight work, flush
 * producers, commit offsets, exit 0). A second signal exits at once.
 */
import { loadConfigFile } from "../config/load.ts";
import { analyzeWorker, workerStrings } from "../config/worker_config.ts";
import { errorLines } from "../config/analyze.ts";
import { logger, type LogLevel, setLogLevel } from "../observability/log.ts";
import { MetricsRegistry } from "../observability/metrics.ts";
import { createKafka, kafkaOptionsFromProperties } from "../kafka/mod.ts";
import { createOffsetStore } from "../runtime/offsets/factory.ts";
import { ConnectorStateStore } from "../runtime/connector_state_store.ts";
import { Herder } from "../runtime/herder.ts";
import { CONNECTOR_PLUGINS } from "./plugins.ts";
import { type RestServer, startRestServer } from "../rest/server.ts";
import { renderDaemonMetrics } from "./daemon_metrics.ts";
import { VERSION } from "../version.ts";
import { startCpuProfileFromEnv } from "../observability/cpu_profile.ts";
import { startMemoryTraceFromEnv } from "../observability/memory_trace.ts";
import { tuneNativeMemory } from "./native_memory.ts";
import { type GroupStores, startGroupStores } from "../runtime/group/group_stores.ts";
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
  setLogLevel(worker.values["log.level"] as LogLevel);
  for (const warning of file.warnings) log.warn(warning);
  const strings = workerStrings(worker);

  const kafka = createKafka((await kafkaOptionsFromProperties(strings)).connection);
  const clusterId = await waitForKafka(kafka, {
    timeoutMs: KAFKA_START_TIMEOUT_MS,
    signal: options.signal,
    onWaiting: options.onKafkaWaiting ?? ((line) => log.warn(line)),
  });

  const offsets = createOffsetStore(worker.values, { kafka });
  await offsets.start();
  // Group mode (group.id): configs and statuses live in topics shared by every member; else in local files.
  const group: GroupStores | null = worker.values["group.id"]
    ? await startGroupStores(worker.values, kafka, offsets, () => workerId)
    : null;
  let stateStore: ConnectorStateStore | undefined;
  if (!group) {
    stateStore = new ConnectorStateStore(worker.values["config.storage.file.filename"] as string);
    await stateStore.load();
  }

  const listeners = worker.values["listeners"] as string[];
  const processMetrics = new MetricsRegistry();
  const tls = await listenerTls(worker.values);
  // The worker id is the first listener's host:port; for port 0 it is known once the server listens.
  let workerId = new URL(listeners[0]).host;
  const herder = new Herder({
    workerRaw: worker.original,
    workerStrings: strings,
    get workerId() {
      return workerId;
    },
    logLevel: worker.values["log.level"] as LogLevel,
    offsets,
    stateStore: group?.config ?? stateStore!,
    placement: group?.members.placement,
    plugins: CONNECTOR_PLUGINS,
    kafka: () => Promise.resolve(kafka),
    gracefulTimeoutMs: worker.values["task.shutdown.graceful.timeout.ms"] as number,
  });
  const rest: RestServer[] = [];
  for (const listener of listeners) {
    rest.push(
      await startRestServer({
        listener,
        herder,
        kafkaClusterId: clusterId,
        metrics: () => renderDaemonMetrics(herder, processMetrics),
        authToken: worker.values["rest.auth.token"] as string | null,
        tls,
      }),
    );
  }
  workerId = new URL(rest[0].url).host;
  await herder.start(config.connectors);
  if (group) await group.members.start(herder);
  log.info(
    { version: VERSION, connectors: herder.names().length, rest: rest.map((r) => r.url) },
    "tablesync started",
  );

  const { promise: done, resolve: resolveDone } = Promise.withResolvers<void>();
  let shuttingDown: Promise<void> | null = null;
  const shutdown = () => {
    shuttingDown ??= (async () => {
      log.info("shutting down: stopping tasks, flushing and committing offsets");
      await herder.shutdown();
      // Leave the group only once every task stopped and committed, so no successor overlaps with them.
      await group?.close().catch((e) => log.error({ err: e }, "leaving the worker group failed"));
      await offsets.close().catch((e) => log.error({ err: e }, "offsets could not be written at shutdown"));
      await Promise.all(rest.map((r) => r.close().catch(() => {})));
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
