/**
 * The herder (Kafka Connect's word): owns every connector of this daemon, turns connector configs into task
 * configs, runs each task in its own Web Worker through a TaskRunner, and answers the REST API's questions and
 * commands with Kafka Connect's shapes and status codes (via ConnectRestError).
 *
 * Connectors come from the config file at start, merged with what operators changed over REST
 * (ConnectorStateStore). A connector whose config is invalid at start is FAILED with the errors as its trace;
 * one created over REST with an invalid config is refused with 400.
 */
import type { ConnectorPlugin } from "../connect/task_api.ts";
import type { RawConfig } from "../config/types.ts";
import { analyzeConnector, type ConnectorAnalysis } from "../config/connector_config.ts";
import { errorCount, errorLines } from "../config/analyze.ts";
import { type ConfigInfos, configInfos, isSecretProperty } from "../config/config_infos.ts";
import { HIDDEN } from "../observability/redact.ts";
import { hasPlaceholder } from "../config/placeholders.ts";
import { staticDefs } from "../config/catalog.ts";
import { connectorTypeOf } from "../config/connector_class.ts";
import { logger, type LogLevel } from "../observability/log.ts";
import { redact } from "../observability/redact.ts";
import { exportPermitPools, permitPoolFor } from "../instance/permit_registry.ts";
import { parseInstanceUrl } from "../instance/instance_url.ts";
import type { KafkaClient } from "../kafka/mod.ts";
import type { OffsetStore } from "./offsets/types.ts";
import { ConnectRestError } from "./connect_rest_error.ts";
import { configHash, type ConnectorConfigStore, type TargetState } from "./connector_state_store.ts";
import type { TaskPlacement } from "./task_placement.ts";
import { TaskRunner } from "./task_runner.ts";
import { sinkGroupOf } from "./sink_group.ts";
import type { OffsetEntry } from "./worker_protocol.ts";

const log = logger("herder");

/** Every statically defined property of either connector kind, for deciding which values are secret. */
const PASSWORD_DEFS = new Map([...staticDefs("source"), ...staticDefs("sink")].map((d) => [d.name, d]));

export type ConnectorState = "RUNNING" | "PAUSED" | "STOPPED" | "FAILED" | "UNASSIGNED" | "RESTARTING";

export interface HerderOptions {
  /** The worker section as written (placeholders unresolved), implied defaults included. */
  workerRaw: RawConfig;
  /** The worker's settings as strings after analysis (defaults applied), for config rules. */
  workerStrings: Record<string, string>;
  /** `host:port` of the REST listener, reported as worker_id. */
  workerId: string;
  logLevel: LogLevel;
  offsets: OffsetStore;
  /** Where connectors changed over REST are kept: the local file (standalone) or the config topic (group). */
  stateStore: ConnectorConfigStore;
  /**
   * Group mode: which tasks this member runs, and the statuses of the others. Default (standalone): every
   * task runs here.
   */
  placement?: TaskPlacement;
  plugins: readonly ConnectorPlugin[];
  /** The worker's Kafka client (sink offsets over REST). */
  kafka: () => Promise<KafkaClient>;
  /** `task.shutdown.graceful.timeout.ms`. */
  gracefulTimeoutMs: number;
}

interface Managed {
  name: string;
  config: RawConfig;
  /** undefined when connector.class names no connector of this build (the connector is FAILED). */
  plugin: ConnectorPlugin | undefined;
  target: TargetState;
  state: ConnectorState;
  trace?: string;
  tasks: TaskRunner[];
  taskConfigs: RawConfig[];
  /** Hash of the config file's entry, when the connector comes from the file. */
  fileHash?: string;
}

export class Herder {
  #o: HerderOptions;
  #connectors = new Map<string, Managed>();
  #fileHashes = new Map<string, string>();

  constructor(options: HerderOptions) {
    this.#o = options;
  }

  get workerId(): string {
    return this.#o.workerId;
  }

  get plugins(): readonly ConnectorPlugin[] {
    return this.#o.plugins;
  }

  /** Starts the connectors of the config file, merged with changes operators made over REST. */
  async start(fileConnectors: { name: string; config: RawConfig }[]): Promise<void> {
    const store = this.#o.stateStore;
    for (const entry of fileConnectors) {
      const hash = await configHash(entry.config);
      this.#fileHashes.set(entry.name, hash);
      const stored = store.get(entry.name);
      if (stored && stored.fileHash === hash) {
        if (stored.deleted) continue;
        this.#add(entry.name, stored.config, stored.target, hash);
      } else if (this.#o.placement) {
        // Group mode: a file entry the shared config does not have yet (or that changed since) seeds it.
        await this.#persist(this.#add(entry.name, entry.config, "RUNNING", hash));
      } else {
        if (stored) await store.remove(entry.name);
        this.#add(entry.name, entry.config, "RUNNING", hash);
      }
    }
    for (const name of store.names()) {
      const stored = store.get(name)!;
      if (this.#fileHashes.has(name) || stored.deleted) continue;
      // Standalone: a stored change of a connector no longer in the file is dropped with it.
      if (stored.fileHash !== undefined && !this.#o.placement) continue;
      this.#add(name, stored.config, stored.target, stored.fileHash);
    }
    for (const m of this.#connectors.values()) this.#startConnector(m);
  }

  #add(name: string, config: RawConfig, target: TargetState, fileHash?: string): Managed {
    const kind = connectorTypeOf(config["connector.class"]);
    const plugin = this.#o.plugins.find((p) => p.kind === kind)!;
    const m: Managed = {
      name,
      config,
      plugin,
      target,
      state: "UNASSIGNED",
      tasks: [],
      taskConfigs: [],
      fileHash,
    };
    this.#connectors.set(name, m);
    return m;
  }

  #pluginFor(config: RawConfig): ConnectorPlugin | undefined {
    const kind = connectorTypeOf(config["connector.class"]);
    return this.#o.plugins.find((p) => p.kind === kind);
  }

  #analyze(config: RawConfig): ConnectorAnalysis {
    return analyzeConnector(config, { worker: this.#o.workerStrings });
  }

  #startConnector(m: Managed): void {
    if (m.target === "STOPPED") {
      m.state = "STOPPED";
      return;
    }
    const analysis = this.#analyze(m.config);
    const plugin = m.plugin;
    // Never start over running tasks, nor for a connector deleted meanwhile.
    if (m.tasks.length > 0 || this.#connectors.get(m.name) !== m) return;
    if (errorCount(analysis) > 0 || !plugin) {
      m.state = "FAILED";
      m.trace = `Connector configuration is invalid:\n${errorLines(analysis).join("\n")}`;
      log.error(
        { connector: m.name, errors: errorLines(analysis) },
        `connector ${m.name} has an invalid config`,
      );
      return;
    }
    try {
      const props = analysis.values;
      const url = props["svc.url"];
      if (typeof url === "string") {
        permitPoolFor(parseInstanceUrl(url).host, props["svc.http.max.concurrent.requests"] as number);
      }
      m.taskConfigs = plugin.taskConfigs(m.config, props, props["tasks.max"] as number);
      m.state = m.target === "PAUSED" ? "PAUSED" : "RUNNING";
      m.trace = undefined;
      m.tasks = m.taskConfigs.flatMap((tc, id) => this.#owns(m.name, id) ? [this.#startTask(m, id, tc)] : []);
      log.info(
        { connector: m.name, tasks: m.tasks.length },
        `connector ${m.name} started with ${m.tasks.length} task(s)`,
      );
    } catch (e) {
      m.state = "FAILED";
      m.trace = redact((e as Error).stack ?? String(e));
      log.error({ connector: m.name, err: e }, `connector ${m.name} failed to start`);
    }
  }

  #startTask(m: Managed, id: number, taskConfig: RawConfig): TaskRunner {
    const kind = m.plugin!.kind;
    const offsets: OffsetEntry[] = kind === "source"
      ? this.#o.offsets.getAll(m.name).map((e) => ({
        partition: { ...e.partition },
        offset: { ...e.offset },
      }))
      : [];
    const runner = new TaskRunner({
      type: "start",
      kind,
      connectorName: m.name,
      taskId: id,
      taskConfig,
      workerConfig: this.#o.workerRaw,
      offsets,
      permitPools: exportPermitPools(),
      logLevel: this.#o.logLevel,
      paused: m.target === "PAUSED",
    }, {
      onOffsets: (entries) => {
        try {
          this.#o.offsets.set(m.name, entries as never);
        } catch (e) {
          log.error({ connector: m.name, err: e }, "invalid offsets from a task were not stored");
        }
      },
      onStateChange: () => this.#reportTask(m.name, runner),
    });
    return runner;
  }

  #owns(connector: string, task: number): boolean {
    return this.#o.placement?.owns(connector, task) ?? true;
  }

  #reportTask(connector: string, task: TaskRunner): void {
    this.#o.placement?.onTaskState(connector, task.taskId, task.state, task.trace);
  }

  async #stopTasks(m: Managed): Promise<void> {
    const tasks = m.tasks;
    m.tasks = [];
    await this.#stopRunners(m, tasks);
  }

  /** Stops the runners (they flush and commit), then makes their offsets durable. */
  async #stopRunners(m: Managed, tasks: TaskRunner[]): Promise<void> {
    await Promise.all(tasks.map((t) => t.stop(this.#o.gracefulTimeoutMs)));
    await this.#o.offsets.flush();
    for (const t of tasks) this.#reportTask(m.name, t);
  }

  #get(name: string): Managed {
    const m = this.#connectors.get(name);
    if (!m) throw ConnectRestError.notFound(name);
    return m;
  }

  // ---- queries ----------------------------------------------------------------------------------------------

  names(): string[] {
    return [...this.#connectors.keys()];
  }

  has(name: string): boolean {
    return this.#connectors.has(name);
  }

  /** The config as shown over REST: placeholders unresolved, literal secrets as [hidden]. */
  config(name: string): RawConfig {
    return shownConfig(this.#get(name).config);
  }

  info(name: string) {
    const m = this.#get(name);
    return {
      name,
      config: shownConfig(m.config),
      tasks: m.taskConfigs.map((_, task) => ({ connector: name, task })),
      type: kindOf(m),
    };
  }

  taskConfigs(name: string) {
    const m = this.#get(name);
    return m.taskConfigs.map((config, task) => ({
      id: { connector: name, task },
      config: shownConfig(config),
    }));
  }

  status(name: string) {
    const m = this.#get(name);
    const placement = this.#o.placement;
    const connector: Record<string, string> = {
      state: m.state,
      worker_id: placement?.connectorWorker(name) ?? this.#o.workerId,
    };
    if (m.trace) connector.trace = m.trace;
    const tasks = placement
      ? m.taskConfigs.map((_, id) => this.#groupTaskState(m, id))
      : m.tasks.map((t) => this.#taskState(t));
    return { name, connector, tasks, type: kindOf(m) };
  }

  taskStatus(name: string, id: number) {
    const m = this.#get(name);
    if (this.#o.placement && id >= 0 && id < m.taskConfigs.length) return this.#groupTaskState(m, id);
    return this.#taskState(this.#task(name, id));
  }

  /** Group mode: the task's state here when it runs here, else as its member last reported it. */
  #groupTaskState(m: Managed, id: number) {
    const local = m.tasks.find((t) => t.taskId === id);
    if (local) return this.#taskState(local);
    const remote = this.#o.placement!.remoteTask(m.name, id);
    const out: Record<string, string | number> = {
      id,
      state: remote?.state ?? "UNASSIGNED",
      worker_id: remote?.workerId ?? this.#o.workerId,
    };
    if (remote?.trace) out.trace = remote.trace;
    return out;
  }

  #taskState(t: TaskRunner) {
    const out: Record<string, string | number> = {
      id: t.taskId,
      state: t.state,
      worker_id: this.#o.workerId,
    };
    if (t.trace) out.trace = t.trace;
    return out;
  }

  #task(name: string, id: number): TaskRunner {
    const m = this.#get(name);
    const task = m.tasks.find((t) => t.taskId === id);
    if (!task) throw new ConnectRestError(404, `Task ${name}-${id} not found`);
    return task;
  }

  /** Every task's runner, for metrics. */
  allTasks(): { connector: string; kind: string; task: TaskRunner }[] {
    return [...this.#connectors.values()].flatMap((m) =>
      m.tasks.map((task) => ({ connector: m.name, kind: kindOf(m), task }))
    );
  }

  connectorStates(): { connector: string; kind: string; state: ConnectorState }[] {
    return [...this.#connectors.values()].map((m) => ({
      connector: m.name,
      kind: kindOf(m),
      state: m.state,
    }));
  }

  // ---- validation ---------------------------------------------------------------------------------------------

  /** Kafka Connect's validate: the plugin in the path must match connector.class (trailing "Connector" ignored). */
  validate(pluginClass: string, config: RawConfig): ConfigInfos {
    const plugin = this.#pluginByName(pluginClass);
    if (!plugin) {
      throw new ConnectRestError(
        404,
        `Failed to find any class that implements Connector and which name matches ${pluginClass}`,
      );
    }
    const given = config["connector.class"];
    if (given !== undefined && !sameConnectorClass(given, plugin.className)) {
      throw new ConnectRestError(
        400,
        `Included connector type ${given} does not match request type ${pluginClass}`,
      );
    }
    const analysis = this.#analyze({ ...config, "connector.class": given ?? plugin.className });
    return configInfos(plugin.className, analysis);
  }

  #pluginByName(name: string): ConnectorPlugin | undefined {
    return this.#o.plugins.find((p) => sameConnectorClass(name, p.className));
  }

  #checkValid(config: RawConfig): void {
    const analysis = this.#analyze(config);
    const lines = errorLines(analysis);
    if (lines.length > 0) {
      const type = connectorTypeOf(config["connector.class"]) ?? "connector";
      throw new ConnectRestError(
        400,
        `Connector configuration is invalid and contains the following ${lines.length} error(s):\n${
          lines.join("\n")
        }\n` +
          `You can also find the above list of errors at the endpoint \`/connector-plugins/{connectorType}/config/validate\`` +
          (type === "connector" ? "" : ""),
      );
    }
  }

  // ---- commands -----------------------------------------------------------------------------------------------
  //
  // Commands on one connector run one at a time (a per-connector queue): a restart racing a delete or a config
  // change must not leave orphan workers or start tasks for a connector that is gone. Once shutdown begins,
  // commands are refused.

  #queues = new Map<string, Promise<unknown>>();
  #closing = false;

  #serialised<T>(name: string, command: () => Promise<T>): Promise<T> {
    if (this.#closing) return Promise.reject(new ConnectRestError(503, "The worker is shutting down"));
    const previous = this.#queues.get(name) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(command);
    this.#queues.set(name, next);
    next.finally(() => {
      if (this.#queues.get(name) === next) this.#queues.delete(name);
    }).catch(() => {});
    return next;
  }

  create(name: string, config: RawConfig, initialState: TargetState = "RUNNING"): Promise<void> {
    return this.#serialised(name, () => this.#create(name, config, initialState));
  }

  async #create(name: string, config: RawConfig, initialState: TargetState): Promise<void> {
    if (this.#connectors.has(name)) throw new ConnectRestError(409, `Connector ${name} already exists`);
    const full: RawConfig = { ...config, name };
    this.#checkValid(full);
    const m = this.#add(name, full, initialState);
    await this.#persist(m);
    this.#startConnector(m);
  }

  /** PUT config: creates (true) or reconfigures (false). */
  putConfig(name: string, config: RawConfig): Promise<boolean> {
    return this.#serialised(name, () => this.#putConfig(name, config));
  }

  async #putConfig(name: string, config: RawConfig): Promise<boolean> {
    if (!this.#connectors.has(name)) {
      await this.#create(name, config, "RUNNING");
      return true;
    }
    const m = this.#get(name);
    const full: RawConfig = keepHiddenSecrets({ ...config, name }, m.config);
    this.#checkValid(full);
    await this.#stopTasks(m);
    m.plugin = this.#pluginFor(full);
    m.config = full;
    await this.#persist(m);
    this.#startConnector(m);
    return false;
  }

  patchConfig(name: string, patch: Record<string, string | null>): Promise<void> {
    return this.#serialised(name, async () => {
      const m = this.#get(name);
      const next: RawConfig = { ...m.config };
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete next[k];
        else next[k] = v;
      }
      await this.#putConfig(name, next);
    });
  }

  /** Kafka Connect: a STOPPED connector that is paused starts its tasks paused. */
  pause(name: string): Promise<void> {
    return this.#changeTarget(name, "PAUSED");
  }

  resume(name: string): Promise<void> {
    return this.#changeTarget(name, "RUNNING");
  }

  stop(name: string): Promise<void> {
    return this.#changeTarget(name, "STOPPED");
  }

  #changeTarget(name: string, target: TargetState): Promise<void> {
    return this.#serialised(name, async () => {
      const m = this.#get(name);
      // A stop is durable once its tasks stopped; a pause or resume is recorded before it is applied.
      if (target !== "STOPPED") await this.#persist({ ...m, target });
      await this.#applyTarget(m, target);
      if (target === "STOPPED") await this.#persist(m);
    });
  }

  async #applyTarget(m: Managed, target: TargetState): Promise<void> {
    const wasStopped = m.target === "STOPPED";
    m.target = target;
    if (target === "STOPPED") {
      await this.#stopTasks(m);
      m.taskConfigs = [];
      m.state = "STOPPED";
      m.trace = undefined;
      return;
    }
    if (wasStopped) {
      this.#startConnector(m);
      return;
    }
    if (target === "PAUSED") {
      if (m.state === "RUNNING") m.state = "PAUSED";
      for (const t of m.tasks) t.pause();
    } else {
      if (m.state === "PAUSED") m.state = "RUNNING";
      for (const t of m.tasks) t.resume();
    }
  }

  /**
   * POST /connectors/<name>/restart. Resolves with the status to answer (202) as Kafka Connect gives it: the
   * instances being restarted shown as RESTARTING, taken before the restart work begins. The work itself runs
   * in the connector's queue; `done` settles when it has finished.
   */
  restart(
    name: string,
    includeTasks: boolean,
    onlyFailed: boolean,
  ): { status: ReturnType<Herder["status"]>; done: Promise<void> } {
    const m = this.#get(name);
    const connectorRestarts = m.target !== "STOPPED" && (!onlyFailed || m.state === "FAILED");
    const tasks = m.target === "STOPPED" || !includeTasks
      ? []
      : m.tasks.filter((t) => connectorRestarts || t.state === "FAILED").map((t) => t.taskId);
    const status = this.status(name);
    if (connectorRestarts) status.connector.state = "RESTARTING";
    for (const t of status.tasks) if (tasks.includes(t.id as number)) t.state = "RESTARTING";
    const done = this.#serialised(name, async () => {
      const current = this.#get(name);
      if (current.target === "STOPPED") return;
      if (connectorRestarts && (includeTasks || current.state === "FAILED" || current.tasks.length === 0)) {
        current.state = "RESTARTING";
        await this.#stopTasks(current);
        this.#startConnector(current);
        return;
      }
      for (const id of tasks) await this.#restartTask(current, id);
    });
    return { status, done };
  }

  restartTask(name: string, id: number): Promise<void> {
    const m = this.#get(name);
    if (!m.tasks.some((t) => t.taskId === id)) {
      throw new ConnectRestError(404, `Task ${name}-${id} not found`);
    }
    return this.#serialised(name, () => this.#restartTask(this.#get(name), id));
  }

  async #restartTask(m: Managed, id: number): Promise<void> {
    const index = m.tasks.findIndex((t) => t.taskId === id);
    if (index < 0) throw new ConnectRestError(404, `Task ${m.name}-${id} not found`);
    await m.tasks[index].stop(this.#o.gracefulTimeoutMs);
    await this.#o.offsets.flush();
    if (this.#connectors.get(m.name) === m && m.tasks[index]?.taskId === id) {
      m.tasks[index] = this.#startTask(m, id, m.taskConfigs[id]);
    }
  }

  delete(name: string): Promise<void> {
    return this.#serialised(name, async () => {
      const m = this.#get(name);
      this.#connectors.delete(name);
      await this.#stopTasks(m);
      if (m.fileHash) {
        await this.#o.stateStore.put(name, {
          config: m.config,
          target: m.target,
          deleted: true,
          fileHash: m.fileHash,
        });
      } else await this.#o.stateStore.remove(name);
    });
  }

  async #persist(m: Pick<Managed, "name" | "config" | "target" | "fileHash">): Promise<void> {
    await this.#o.stateStore.put(m.name, { config: m.config, target: m.target, fileHash: m.fileHash });
  }

  // ---- offsets (KIP-875) -------------------------------------------------------------------------------------

  async offsets(
    name: string,
  ): Promise<{ offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> }[] }> {
    const m = this.#get(name);
    if (kindOf(m) === "source") {
      return {
        offsets: this.#o.offsets.getAll(name).map((e) => ({
          partition: { ...e.partition },
          offset: { ...e.offset },
        })),
      };
    }
    const admin = await (await this.#o.kafka()).admin();
    try {
      const committed = await admin.fetchCommittedOffsets(sinkGroupOf(m.config));
      return {
        offsets: committed.map((c) => ({
          partition: { kafka_topic: c.topic, kafka_partition: c.partition },
          offset: { kafka_offset: c.offset },
        })),
      };
    } finally {
      await admin.close();
    }
  }

  #requireStopped(m: Managed): void {
    if (m.target !== "STOPPED" || m.tasks.length > 0) {
      throw new ConnectRestError(
        400,
        `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${m.name}/stop' endpoint`,
      );
    }
  }

  alterOffsets(name: string, entries: { partition: unknown; offset: unknown }[]): Promise<void> {
    return this.#serialised(name, () => this.#alterOffsets(name, entries));
  }

  async #alterOffsets(name: string, entries: { partition: unknown; offset: unknown }[]): Promise<void> {
    const m = this.#get(name);
    this.#requireStopped(m);
    if (!Array.isArray(entries) || entries.length === 0) {
      throw new ConnectRestError(
        400,
        "Partitions / offsets need to be provided for an alter offsets request",
      );
    }
    if (kindOf(m) === "source") {
      for (const e of entries) {
        if (!isObject(e.partition)) throw new ConnectRestError(400, "Source partitions may not be null");
        if (e.offset !== null && !isObject(e.offset)) {
          throw new ConnectRestError(400, "Source offsets must be objects or null");
        }
      }
      try {
        this.#o.offsets.set(name, entries as never);
      } catch (e) {
        throw new ConnectRestError(400, (e as Error).message);
      }
      await this.#o.offsets.flush();
      return;
    }
    const changes = entries.map((e) => sinkOffsetChange(e));
    const admin = await (await this.#o.kafka()).admin();
    try {
      await admin.setCommittedOffsets(sinkGroupOf(m.config), changes);
    } finally {
      await admin.close();
    }
  }

  resetOffsets(name: string): Promise<void> {
    return this.#serialised(name, () => this.#resetOffsets(name));
  }

  async #resetOffsets(name: string): Promise<void> {
    const m = this.#get(name);
    this.#requireStopped(m);
    if (kindOf(m) === "source") {
      this.#o.offsets.set(
        name,
        this.#o.offsets.getAll(name).map((e) => ({ partition: e.partition, offset: null })),
      );
      await this.#o.offsets.flush();
      return;
    }
    const admin = await (await this.#o.kafka()).admin();
    try {
      const committed = await admin.fetchCommittedOffsets(sinkGroupOf(m.config));
      if (committed.length > 0) {
        await admin.setCommittedOffsets(
          sinkGroupOf(m.config),
          committed.map((c) => ({ topic: c.topic, partition: c.partition, offset: -1 })),
        );
      }
    } finally {
      await admin.close();
    }
  }

  // ---- group mode (see runtime/group/) --------------------------------------------------------------------

  /** Every connector and its task count under the current configs: what the group assigns. */
  work(): { connector: string; tasks: number }[] {
    return [...this.#connectors.values()].map((m) => ({ connector: m.name, tasks: m.taskConfigs.length }));
  }

  /**
   * Brings the running tasks in line with the placement: stops tasks no longer placed here (they flush and
   * commit, offsets made durable) and starts those newly placed here. Resolves once the stops completed.
   * Returns how many tasks were stopped.
   */
  async reconcile(): Promise<number> {
    let stopped = 0;
    await Promise.all([...this.#connectors.values()].map((m) =>
      this.#serialised(m.name, async () => {
        if (this.#connectors.get(m.name) !== m) return;
        const gone = m.tasks.filter((t) => !this.#owns(m.name, t.taskId));
        if (gone.length > 0) {
          m.tasks = m.tasks.filter((t) => !gone.includes(t));
          await this.#stopRunners(m, gone);
          stopped += gone.length;
        }
        if (m.state === "UNASSIGNED") {
          this.#startConnector(m);
          return;
        }
        if (m.state !== "RUNNING" && m.state !== "PAUSED") return;
        m.taskConfigs.forEach((tc, id) => {
          if (this.#owns(m.name, id) && !m.tasks.some((t) => t.taskId === id)) {
            m.tasks.push(this.#startTask(m, id, tc));
          }
        });
      }).catch((e) => {
        if (!(e instanceof ConnectRestError)) throw e;
      })
    ));
    return stopped;
  }

  /**
   * A connector change read from the shared config (written by any member, this one included): applies it
   * here unless it is what this member already runs. `null` = deleted.
   */
  applyShared(name: string, entry: { config: RawConfig; target: TargetState } | null): Promise<void> {
    return this.#serialised(name, async () => {
      const m = this.#connectors.get(name);
      if (entry === null) {
        if (!m) return;
        this.#connectors.delete(name);
        await this.#stopTasks(m);
        return;
      }
      if (!m) {
        this.#startConnector(this.#add(name, entry.config, entry.target));
        return;
      }
      if (!sameConfig(m.config, entry.config)) {
        await this.#stopTasks(m);
        m.plugin = this.#pluginFor(entry.config);
        m.config = entry.config;
        m.target = entry.target;
        m.state = "UNASSIGNED";
        m.taskConfigs = [];
        this.#startConnector(m);
        return;
      }
      if (m.target !== entry.target) await this.#applyTarget(m, entry.target);
    }).catch((e) => {
      if (!(e instanceof ConnectRestError)) throw e;
    });
  }

  /** Stops every task gracefully (they flush and commit), then writes offsets. A second call kills at once. */
  async shutdown(): Promise<void> {
    this.#closing = true;
    // Commands already queued finish first, so none starts workers after the snapshot below.
    await Promise.allSettled([...this.#queues.values()]);
    await Promise.all([...this.#connectors.values()].map((m) => this.#stopTasks(m).catch(() => {})));
  }

  kill(): void {
    for (const m of this.#connectors.values()) for (const t of m.tasks) t.kill();
  }
}

/** Secret values are shown as [hidden] unless they are placeholders (which are not secrets themselves). */
function shownConfig(config: RawConfig): RawConfig {
  const out: RawConfig = {};
  for (const [k, v] of Object.entries(config)) out[k] = isSecretKey(k) && !hasPlaceholder(v) ? HIDDEN : v;
  return out;
}

/** A config sent back with [hidden] values (as GET returned it) keeps the stored secrets. */
function keepHiddenSecrets(next: RawConfig, previous: RawConfig): RawConfig {
  const out = { ...next };
  for (const [k, v] of Object.entries(out)) {
    if (v === HIDDEN && previous[k] !== undefined) out[k] = previous[k];
  }
  return out;
}

function isSecretKey(key: string): boolean {
  return isSecretProperty(PASSWORD_DEFS.get(key), key);
}

/** Connect's connector type: "unknown" when the class names no connector of this build. */
function kindOf(m: Managed): "source" | "sink" | "unknown" {
  return m.plugin?.kind ?? "unknown";
}

/** Kafka Connect's alias matching: compare without a trailing "Connector", by suffix. */
export function sameConnectorClass(a: string, b: string): boolean {
  const strip = (s: string) => s.replace(/Connector$/, "");
  const x = strip(a);
  const y = strip(b);
  return x === y || x.endsWith(`.${y}`) || y.endsWith(`.${x}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sinkOffsetChange(
  e: { partition: unknown; offset: unknown },
): { topic: string; partition: number; offset: number } {
  const p = e.partition as Record<string, unknown> | null;
  if (!isObject(p) || typeof p.kafka_topic !== "string" || p.kafka_partition === undefined) {
    throw new ConnectRestError(
      400,
      "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'",
    );
  }
  const partition = Number(p.kafka_partition);
  if (!Number.isInteger(partition) || partition < 0) {
    throw new ConnectRestError(
      400,
      "Failed to parse the following Kafka partition value in the provided offsets: '" +
        String(p.kafka_partition) + "'. Partition values for sink connectors need to be integers.",
    );
  }
  if (e.offset === null) return { topic: p.kafka_topic, partition, offset: -1 };
  const o = e.offset as Record<string, unknown>;
  if (!isObject(o) || o.kafka_offset === undefined) {
    throw new ConnectRestError(
      400,
      "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
    );
  }
  const offset = Number(o.kafka_offset);
  if (!Number.isInteger(offset) || offset < 0) {
    throw new ConnectRestError(
      400,
      "Failed to parse the following Kafka offset value in the provided offsets: '" + String(o.kafka_offset) +
        "'. Offset values for sink connectors need to be integers.",
    );
  }
  return { topic: p.kafka_topic, partition, offset };
}

/** Same properties and values, in any order. */
function sameConfig(a: RawConfig, b: RawConfig): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
