/**
 * The herder (Kafka Connect's word): owns every connector of this daemon, turns connector configs into task
 * configs, runs each task in its own task thread (a Web Worker) through a TaskRunner, and answers the REST API's questions and
 * commands with Kafka Connect's shapes and status codes (via ConnectRestError).
 *
 * Connectors come from the config file at start, merged with what operators changed over REST
 * (ConnectorStateStore). A connector whose config is invalid at start is FAILED with the errors as its trace;
 * one created over REST with an invalid config is refused with 400.
 *
 * This class holds the connectors and orders the commands; each concern has its own room in herder/ (lifecycle,
 * restarts, status views, offsets, validation, names, secret masking, what the state store keeps, the queue).
 */
import type { ConnectorPlugin } from "../connect/task_api.ts";
import type { RawConfig } from "../common/props.ts";
import type { ConfigInfos } from "../config/config_infos.ts";
import { connectorTypeOf } from "../config/connector_class.ts";
import type { KafkaClient } from "../kafka/mod.ts";
import type { OffsetStore } from "./offsets/types.ts";
import { ConnectRestError } from "./herder/connect_rest_error.ts";
import type { ConnectorConfigStore, TargetState } from "./herder/connector_state_store.ts";
import type { RestartRequest, TaskPlacement } from "./herder/task_placement.ts";
import type { TaskRunner } from "./herder/task_runner.ts";
import { CommandQueue } from "./herder/command_queue.ts";
import { keepHiddenSecrets, shownConfig } from "./herder/config_masking.ts";
import { ConnectorLifecycle, type LifecycleOptions } from "./herder/connector_lifecycle.ts";
import { ConnectorOffsets } from "./herder/connector_offsets.ts";
import { restartHere, restartTaskHere, showRestarting } from "./herder/connector_restart.ts";
import {
  connectorInfo,
  connectorStatus,
  groupTaskStatus,
  taskConfigsOf,
  taskStatusOf,
} from "./herder/connector_status.ts";
import { ConnectorValidator } from "./herder/connector_validation.ts";
import { type ConnectorState, kindOf, type ManagedConnector } from "./herder/managed.ts";
import { StoredConnectors } from "./herder/stored_connectors.ts";
import { checkConnectorName } from "./herder/connector_name.ts";

export interface HerderOptions {
  /** The worker section as written (placeholders unresolved), implied defaults included. */
  workerRaw: RawConfig;
  /** The worker's settings as strings after analysis (defaults applied), for config rules. */
  workerStrings: Record<string, string>;
  /** `host:port` of the REST listener, reported as worker_id. */
  workerId: string;
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
  /** The task threads' module: task/task_thread.ts unless a test supervises another script. */
  taskThreadUrl?: URL;
  fencing?: LifecycleOptions["fencing"]; // exactly-once source tasks' zombie-fencing rounds (zombie_fencing.ts)
}

export class Herder {
  #o: HerderOptions;
  #connectors = new Map<string, ManagedConnector>();
  readonly #commands = new CommandQueue();
  readonly #validator: ConnectorValidator;
  readonly #lifecycle: ConnectorLifecycle;
  readonly #offsets: ConnectorOffsets;
  readonly #stored: StoredConnectors;

  constructor(options: HerderOptions) {
    this.#o = options;
    this.#validator = new ConnectorValidator(options.plugins, options.workerStrings);
    this.#lifecycle = new ConnectorLifecycle({
      ...options,
      validator: this.#validator,
      isCurrent: (m) => this.#connectors.get(m.name) === m,
      commands: this.#commands,
    });
    this.#offsets = new ConnectorOffsets(options.offsets, options.kafka);
    this.#stored = new StoredConnectors(options.stateStore, options.placement !== undefined);
  }

  get workerId(): string {
    return this.#o.workerId;
  }

  get plugins(): readonly ConnectorPlugin[] {
    return this.#o.plugins;
  }

  /** Starts the connectors of the config file, merged with changes operators made over REST. */
  async start(fileConnectors: { name: string; config: RawConfig }[]): Promise<void> {
    for (const c of await this.#stored.atStart(fileConnectors)) {
      // Held before it is written: the shared config read back finds it and leaves it as it is.
      const m = this.#add(c.name, c.config, c.target, c.fileHash);
      if (c.seed) await this.#stored.save(m);
    }
    for (const m of this.#connectors.values()) this.#lifecycle.start(m);
  }

  #add(name: string, config: RawConfig, target: TargetState, fileHash?: string): ManagedConnector {
    const plugin = this.#o.plugins.find((p) => p.kind === connectorTypeOf(config["connector.class"]))!;
    const m: ManagedConnector = {
      name,
      config,
      plugin,
      target,
      state: "UNASSIGNED",
      tasks: [],
      taskConfigs: [],
      fileHash,
      activeTopics: new Set(),
    };
    this.#connectors.set(name, m);
    return m;
  }

  #get(name: string): ManagedConnector {
    const m = this.#connectors.get(name);
    if (!m) throw ConnectRestError.notFound(name);
    return m;
  }

  // ---- queries ----------------------------------------------------------------------------------------------

  names(): string[] {
    return [...this.#connectors.keys()];
  }

  /** The config as shown over REST: placeholders unresolved, literal secrets as [hidden]. */
  config(name: string): RawConfig {
    return shownConfig(this.#get(name).config);
  }

  info(name: string) {
    return connectorInfo(this.#get(name));
  }

  taskConfigs(name: string) {
    return taskConfigsOf(this.#get(name));
  }

  status(name: string) {
    return connectorStatus(this.#get(name), this.#o.workerId, this.#o.placement);
  }

  taskStatus(name: string, id: number) {
    const m = this.#get(name);
    const placement = this.#o.placement;
    if (placement && id >= 0 && id < m.taskConfigs.length) {
      return groupTaskStatus(m, id, this.#o.workerId, placement);
    }
    return taskStatusOf(this.#task(name, id), this.#o.workerId);
  }

  #task(name: string, id: number): TaskRunner {
    const task = this.#get(name).tasks.find((t) => t.taskId === id);
    if (!task) throw new ConnectRestError(404, `Task ${name}-${id} not found`);
    return task;
  }

  /** KIP-558: the topics the connector's tasks used since it started here or since the last reset, sorted. */
  activeTopics(name: string): string[] {
    return [...this.#get(name).activeTopics].sort();
  }

  /** Empties the connector's active topics; its running tasks report each topic again on its next use. */
  resetActiveTopics(name: string): void {
    this.#lifecycle.resetTopics(this.#get(name));
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

  /** Kafka Connect's validate: the plugin in the path must match connector.class (trailing "Connector" ignored). */
  validate(pluginClass: string, config: RawConfig): ConfigInfos {
    return this.#validator.validate(pluginClass, config);
  }

  // ---- commands (one at a time per connector: command_queue.ts) ------------------------------------------------

  create(name: string, config: RawConfig, initialState: TargetState = "RUNNING"): Promise<void> {
    return this.#commands.run(name, () => this.#create(name, config, initialState));
  }

  async #create(name: string, config: RawConfig, initialState: TargetState): Promise<void> {
    if (this.#connectors.has(name)) throw new ConnectRestError(409, `Connector ${name} already exists`);
    checkConnectorName(name);
    const full: RawConfig = { ...config, name };
    this.#validator.checkValid(full);
    // Stored before it is held: a failed write leaves nothing registered.
    await this.#stored.save({ name, config: full, target: initialState });
    this.#lifecycle.start(this.#add(name, full, initialState));
  }

  /** PUT config: creates (true) or reconfigures (false). */
  putConfig(name: string, config: RawConfig): Promise<boolean> {
    return this.#commands.run(name, () => this.#putConfig(name, config));
  }

  async #putConfig(name: string, config: RawConfig): Promise<boolean> {
    if (!this.#connectors.has(name)) {
      await this.#create(name, config, "RUNNING");
      return true;
    }
    const m = this.#get(name);
    const full: RawConfig = keepHiddenSecrets({ ...config, name }, m.config);
    this.#validator.checkValid(full);
    // Stored before anything changes: a failed write leaves the connector running as it was.
    await this.#stored.save({ ...m, config: full });
    await this.#lifecycle.reconfigure(m, full, m.target);
    return false;
  }

  patchConfig(name: string, patch: Record<string, string | null>): Promise<void> {
    return this.#commands.run(name, async () => {
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
    return this.#commands.run(name, async () => {
      const m = this.#get(name);
      // A stop is durable once its tasks stopped; a pause or resume is recorded before it is applied.
      if (target !== "STOPPED") await this.#stored.save({ ...m, target });
      await this.#lifecycle.applyTarget(m, target);
      if (target === "STOPPED") await this.#stored.save(m);
    });
  }

  /**
   * POST /connectors/<name>/restart. Resolves with the status to answer (202) as Kafka Connect gives it: the
   * instances being restarted shown as RESTARTING, taken before the restart work begins. The work itself runs
   * in the connector's queue (standalone) or on each member that runs part of it (group mode, through the
   * config topic); `done` settles when it has finished here, or when the request was written.
   */
  restart(
    name: string,
    includeTasks: boolean,
    onlyFailed: boolean,
  ): { status: ReturnType<Herder["status"]>; done: Promise<void> } {
    const request = { includeTasks, onlyFailed };
    const status = showRestarting(this.status(name), this.#get(name), request);
    const placement = this.#o.placement;
    const done = placement ? placement.requestRestart(name, request) : this.applyRestart(name, request);
    return { status, done };
  }

  /** Restarts what runs here of the connector, as a restart request asks (group mode: any member's). */
  applyRestart(name: string, request: RestartRequest): Promise<void> {
    return this.#commands.run(name, () => restartHere(this.#get(name), request, this.#lifecycle));
  }

  /** POST /connectors/<name>/tasks/<id>/restart: here (standalone), or wherever the task runs (group mode). */
  async restartTask(name: string, id: number): Promise<void> {
    const m = this.#get(name);
    const placement = this.#o.placement;
    const known = placement ? id >= 0 && id < m.taskConfigs.length : m.tasks.some((t) => t.taskId === id);
    if (!known) throw new ConnectRestError(404, `Task ${name}-${id} not found`);
    if (placement) await placement.requestTaskRestart(name, id);
    else await this.applyTaskRestart(name, id);
  }

  /** Restarts the task if it runs here (group mode: a request any member wrote). */
  applyTaskRestart(name: string, id: number): Promise<void> {
    return this.#commands.run(name, async () => {
      const m = this.#get(name);
      if (m.tasks.some((t) => t.taskId === id)) await restartTaskHere(m, id, this.#lifecycle);
    });
  }

  delete(name: string): Promise<void> {
    return this.#commands.run(name, async () => {
      const m = this.#get(name);
      this.#connectors.delete(name);
      await this.#lifecycle.stopTasks(m);
      await this.#stored.forget(m);
    });
  }

  // ---- offsets (KIP-875: connector_offsets.ts) -------------------------------------------------------------

  async offsets(name: string): ReturnType<ConnectorOffsets["list"]> {
    const m = this.#get(name);
    await this.#readSharedOffsets();
    return await this.#offsets.list(m);
  }

  alterOffsets(name: string, entries: { partition: unknown; offset: unknown }[]): Promise<void> {
    return this.#commands.run(name, () => this.#offsets.alter(this.#get(name), entries));
  }

  resetOffsets(name: string): Promise<void> {
    return this.#commands.run(name, async () => {
      const m = this.#get(name);
      await this.#readSharedOffsets();
      await this.#offsets.reset(m);
    });
  }

  /** Group mode: other members write source offsets too; read them before answering or resetting. */
  async #readSharedOffsets(): Promise<void> {
    await this.#o.placement?.readSharedOffsets();
  }

  // ---- group mode (see runtime/group/) --------------------------------------------------------------------

  /** Every connector and its task count under the current configs: what the group assigns. */
  work(): { connector: string; tasks: number }[] {
    return [...this.#connectors.values()].map((m) => ({ connector: m.name, tasks: m.taskConfigs.length }));
  }

  /**
   * Brings the running tasks in line with the placement (connector_lifecycle.ts `reconcile`). Resolves once the
   * stops completed; returns how many tasks were stopped.
   */
  async reconcile(): Promise<number> {
    let stopped = 0;
    await Promise.all([...this.#connectors.values()].map((m) =>
      this.#commands.run(m.name, async () => {
        if (this.#connectors.get(m.name) === m) stopped += await this.#lifecycle.reconcile(m);
      }).catch(ignoreRestErrors)
    ));
    return stopped;
  }

  /**
   * A connector change read from the shared config (written by any member, this one included): applies it
   * here unless it is what this member already runs. `null` = deleted.
   */
  applyShared(name: string, entry: { config: RawConfig; target: TargetState } | null): Promise<void> {
    return this.#commands.run(name, async () => {
      const m = this.#connectors.get(name);
      if (entry === null) {
        if (!m) return;
        this.#connectors.delete(name);
        await this.#lifecycle.stopTasks(m);
        return;
      }
      if (!m) {
        this.#lifecycle.start(this.#add(name, entry.config, entry.target));
        return;
      }
      await this.#lifecycle.applyShared(m, entry);
    }).catch(ignoreRestErrors);
  }

  /** Stops every task gracefully (they flush and commit), then writes offsets. A second call kills at once. */
  async shutdown(): Promise<void> {
    // Commands already queued finish first, so none starts task threads after the snapshot below.
    await this.#commands.close();
    await Promise.all(
      [...this.#connectors.values()].map((m) => this.#lifecycle.stopTasks(m).catch(() => {})),
    );
  }

  kill(): void {
    for (const m of this.#connectors.values()) for (const t of m.tasks) t.kill();
  }
}

/** Group mode's own calls skip a connector that is gone or a worker shutting down (the REST answers). */
function ignoreRestErrors(e: unknown): void {
  if (!(e instanceof ConnectRestError)) throw e;
}
