/**
 * Starting and stopping a connector's tasks: the config is checked, the connector's plugin splits it into task
 * configs, and each task runs in its own task thread (TaskRunner) with the connector's committed source offsets
 * and the shared permit pools. An invalid config or a failing plugin makes the connector FAILED with a trace.
 */
import type { RawConfig } from "../../common/props.ts";
import { errorCount, errorLines } from "../../config/analyze.ts";
import { exportPermitPools, permitPoolFor } from "../../instance/permit_registry.ts";
import { parseInstanceUrl } from "../../instance/instance_url.ts";
import { logger, logSettings } from "../../observability/log.ts";
import { redact } from "../../observability/redact.ts";
import type { OffsetStore } from "../offsets/types.ts";
import type { TaskPlacement } from "./task_placement.ts";
import type { TargetState } from "./connector_state_store.ts";
import { sourceOffsetsOf } from "./connector_offsets.ts";
import { TaskRunner } from "./task_runner.ts";
import type { ConnectorValidator } from "./connector_validation.ts";
import type { ManagedConnector } from "./managed.ts";
import { SupersededRound, type ZombieFencing } from "./zombie_fencing.ts";
import type { CommandQueue } from "./command_queue.ts";
import { TransientRestarts } from "./transient_restarts.ts";

const log = logger("herder");

export interface LifecycleOptions {
  /** The worker section as written (placeholders unresolved), implied defaults included. */
  readonly workerRaw: RawConfig;
  readonly offsets: OffsetStore;
  readonly validator: ConnectorValidator;
  /** `task.shutdown.graceful.timeout.ms`. */
  readonly gracefulTimeoutMs: number;
  /** False once the connector was deleted or replaced: its tasks must not (re)start. */
  readonly isCurrent: (m: ManagedConnector) => boolean;
  /** Group mode: which tasks run here, and where their states go. Default (standalone): every task runs here. */
  readonly placement?: TaskPlacement;
  /** This member's worker_id (group mode: tells its own task statuses from other members'). */
  readonly workerId?: string;
  /** The task threads' module: task/task_thread.ts unless a test supervises another script. */
  readonly taskThreadUrl?: URL;
  /** With exactly-once source tasks: the zombie-fencing round each new config of a source connector waits for. */
  readonly fencing?: ZombieFencing;
  /** The herder's per-connector queue: a task failed on a transient fault is restarted through it. */
  readonly commands?: CommandQueue;
}

export class ConnectorLifecycle {
  readonly #restarts = new TransientRestarts();

  constructor(private readonly o: LifecycleOptions) {}

  /** A task failed on a transient fault (TransientTaskFailure): restarted after a backoff, if still failed then. */
  #onTransientFailure(m: ManagedConnector, runner: TaskRunner): void {
    this.#restarts.schedule(m.name, runner.taskId, async () => {
      await this.o.commands?.run(m.name, async () => {
        // The same task, still failed: an operator may have restarted, changed or deleted it meanwhile.
        const index = m.tasks.indexOf(runner);
        if (this.o.isCurrent(m) && index >= 0 && runner.state === "FAILED") await this.restartTask(m, index);
      });
    });
  }

  start(m: ManagedConnector): void {
    if (m.target === "STOPPED") {
      m.state = "STOPPED";
      return;
    }
    const analysis = this.o.validator.analyze(m.config);
    const plugin = m.plugin;
    // Never start over running tasks, nor for a connector deleted meanwhile.
    if (m.tasks.length > 0 || !this.o.isCurrent(m)) return;
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
      // Every process asks, so the one that runs the connector's rounds runs this one even without its tasks.
      this.#fencingRound(m)?.catch((e) => {
        if (e instanceof SupersededRound) return; // a newer config has its own round
        log.error({ connector: m.name, err: e }, `the zombie-fencing round of connector ${m.name} failed`);
      });
      m.state = m.target === "PAUSED" ? "PAUSED" : "RUNNING";
      m.trace = undefined;
      m.tasks = m.taskConfigs.flatMap((tc, id) => this.owns(m.name, id) ? [this.startTask(m, id, tc)] : []);
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

  /** Moves the connector to `target`: stops its tasks, starts them (from STOPPED), or pauses/resumes them. */
  async applyTarget(m: ManagedConnector, target: TargetState): Promise<void> {
    const wasStopped = m.target === "STOPPED";
    m.target = target;
    if (target === "STOPPED") {
      await this.stopTasks(m);
      m.taskConfigs = [];
      m.state = "STOPPED";
      m.trace = undefined;
      return;
    }
    if (wasStopped) {
      // Its offsets may have been altered or reset over REST on another member meanwhile (group mode).
      await this.#readSharedOffsets(m.name);
      this.start(m);
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

  /** Stops every task gracefully (they flush and commit), then makes their offsets durable. */
  async stopTasks(m: ManagedConnector): Promise<void> {
    const tasks = m.tasks;
    m.tasks = [];
    await this.stopRunners(m, tasks);
  }

  /** Stops the runners (they flush and commit), then makes their offsets durable. */
  async stopRunners(m: ManagedConnector, tasks: TaskRunner[]): Promise<void> {
    await Promise.all(tasks.map((t) => t.stop(this.o.gracefulTimeoutMs)));
    await this.o.offsets.flush();
    for (const t of tasks) this.#reportTask(m.name, t);
  }

  /**
   * Group mode: brings the connector's running tasks in line with the placement. Stops tasks no longer placed
   * here (they flush and commit, offsets made durable) and starts those newly placed here; returns how many
   * were stopped.
   */
  async reconcile(m: ManagedConnector): Promise<number> {
    const gone = m.tasks.filter((t) => !this.owns(m.name, t.taskId));
    if (gone.length > 0) {
      m.tasks = m.tasks.filter((t) => !gone.includes(t));
      await this.stopRunners(m, gone);
    }
    if (m.state === "UNASSIGNED") {
      this.start(m);
    } else if (m.state === "RUNNING" || m.state === "PAUSED") {
      m.taskConfigs.forEach((tc, id) => {
        if (this.owns(m.name, id) && !m.tasks.some((t) => t.taskId === id)) {
          m.tasks.push(this.startTask(m, id, tc));
        }
      });
    }
    return gone.length;
  }

  /**
   * Group mode: the connector's shared config as another member wrote it: restart with it, or apply its target.
   */
  async applyShared(m: ManagedConnector, entry: { config: RawConfig; target: TargetState }): Promise<void> {
    if (sameConfig(m.config, entry.config)) {
      if (m.target !== entry.target) await this.applyTarget(m, entry.target);
      return;
    }
    await this.reconfigure(m, entry.config, entry.target);
  }

  /**
   * Restarts the connector with a new config, changed over REST here or read from the shared config. In group
   * mode the new config may move a source table onto a task of this member from a task that ran on another
   * (source/assignment.ts splits the tables by tasks.max), which committed its offsets there. So every member,
   * the one that took the REST request included, stops its own tasks, waits until the connector's tasks on the
   * other members report themselves stopped, and reads the group's offsets before any task starts here.
   */
  async reconfigure(m: ManagedConnector, config: RawConfig, target: TargetState): Promise<void> {
    const previousTasks = m.taskConfigs.length;
    await this.stopTasks(m);
    this.#reportNotStarted(m.name, previousTasks);
    await this.#otherMembersStopped(m.name, previousTasks);
    await this.#readSharedOffsets(m.name);
    m.plugin = this.o.validator.pluginFor(config);
    m.config = config;
    m.target = target;
    m.state = "UNASSIGNED";
    m.taskConfigs = [];
    this.start(m);
  }

  /** Group mode: the offsets other members wrote; a failed read leaves the tasks with those known here. */
  async #readSharedOffsets(connector: string): Promise<void> {
    await this.o.placement?.readSharedOffsets().catch((e) =>
      log.warn({ connector, err: e }, "reading the group's offsets failed; tasks start from those known here")
    );
  }

  /**
   * Group mode: the tasks of the old config that the latest rebalance round handed to this member but that do
   * not run here (its assignment is applied after this change, which it now never starts them with) are
   * reported UNASSIGNED, so that the other members' waits below need not run out.
   */
  #reportNotStarted(connector: string, tasks: number): void {
    const placement = this.o.placement;
    if (!placement) return;
    for (let id = 0; id < tasks; id++) {
      if (placement.handedOver(connector, id)?.workerId === this.o.workerId) {
        placement.onTaskState(connector, id, "UNASSIGNED", undefined, []);
      }
    }
  }

  /**
   * Group mode: waits (at most the graceful timeout) until the connector's tasks that ran on other members
   * report themselves stopped. A member reports a task stopped only once its final offsets are durable, so the
   * offsets read next hold them: a table moved here resumes from its old task's last offset, not a stale one.
   *
   * A rebalance round that just handed a task to another member makes its statuses from before stale: the old
   * owner's UNASSIGNED says nothing of the new owner, which may be starting the task with the old config right
   * now (its RUNNING not read here yet). Such a task counts as stopped only once its new owner reported it
   * stopped (or not started) from that round's generation on, as Connect's statuses carry the generation.
   */
  async #otherMembersStopped(connector: string, tasks: number): Promise<void> {
    const placement = this.o.placement;
    if (!placement) return;
    // A task seen stopped once counts as stopped: its member may start it again with the new config meanwhile.
    const waiting = new Set(Array.from({ length: tasks }, (_, id) => id));
    const deadline = Date.now() + this.o.gracefulTimeoutMs;
    const logged = new Set<number>();
    for (;;) {
      for (const id of waiting) {
        const t = placement.remoteTask(connector, id);
        const handover = placement.handedOver(connector, id);
        const stale = handover !== undefined && handover.workerId !== this.o.workerId &&
          (t?.workerId !== handover.workerId || (t.generation ?? -1) < handover.generation);
        const runsElsewhere = t !== undefined && t.workerId !== this.o.workerId &&
          (t.state === "RUNNING" || t.state === "PAUSED");
        if (!stale && !runsElsewhere) waiting.delete(id);
        else if (stale && !logged.has(id)) {
          logged.add(id);
          log.info(
            { connector, task: id, worker: handover.workerId, generation: handover.generation },
            `waiting for task ${connector}-${id}'s new owner to report it from the latest rebalance round`,
          );
        }
      }
      if (waiting.size === 0) return;
      if (Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    log.warn(
      { connector, tasks: [...waiting] },
      "tasks of another member did not report themselves stopped in time; tables moved here may resume from " +
        "older offsets and send rows again",
    );
  }

  /** Empties the connector's active topics; its running tasks report each again on its next use. */
  resetTopics(m: ManagedConnector): void {
    m.activeTopics.clear();
    for (const t of m.tasks) t.resetTopics();
  }

  /** Whether this member runs the connector's task (always, standalone). */
  owns(connector: string, task: number): boolean {
    return this.o.placement?.owns(connector, task) ?? true;
  }

  #reportTask(connector: string, task: TaskRunner): void {
    this.o.placement?.onTaskState(connector, task.taskId, task.state, task.trace, task.warnings);
  }

  async restartTask(m: ManagedConnector, index: number): Promise<void> {
    const id = m.tasks[index].taskId;
    log.info({ connector: m.name, task: id }, `restarting task ${m.name}-${id}`);
    await m.tasks[index].stop(this.o.gracefulTimeoutMs);
    await this.o.offsets.flush();
    if (this.o.isCurrent(m) && m.tasks[index]?.taskId === id) {
      m.tasks[index] = this.startTask(m, id, m.taskConfigs[id]);
    }
  }

  /** The round the tasks of the connector's current config wait for (exactly-once sources only). */
  #fencingRound(m: ManagedConnector): Promise<void> | undefined {
    if (!this.o.fencing || m.plugin?.kind !== "source") return undefined;
    const config = m.config;
    return this.o.fencing.ready(
      m.name,
      config,
      m.taskConfigs.length,
      () => this.o.isCurrent(m) && m.config === config,
    );
  }

  startTask(m: ManagedConnector, id: number, taskConfig: RawConfig): TaskRunner {
    const kind = m.plugin!.kind;
    const offsets = kind === "source" ? sourceOffsetsOf(this.o.offsets, m.name) : [];
    const runner = new TaskRunner({
      type: "start",
      kind,
      connectorName: m.name,
      taskId: id,
      taskConfig,
      workerConfig: this.o.workerRaw,
      offsets,
      permitPools: exportPermitPools(),
      logSettings: logSettings(),
      paused: m.target === "PAUSED",
    }, {
      onOffsets: (entries, committed) => {
        try {
          if (committed && this.o.offsets.applyCommitted) this.o.offsets.applyCommitted(m.name, entries);
          else this.o.offsets.set(m.name, entries);
        } catch (e) {
          log.error({ connector: m.name, err: e }, "invalid offsets from a task were not stored");
        }
      },
      onStateChange: () => this.#reportTask(m.name, runner),
      onTransientFailure: () => this.#onTransientFailure(m, runner),
      onTopics: (topics) => {
        for (const topic of topics) m.activeTopics.add(topic);
      },
    }, { taskThreadUrl: this.o.taskThreadUrl, startAfter: this.#fencingRound(m) });
    return runner;
  }
}

/** Same properties and values, in any order. */
function sameConfig(a: RawConfig, b: RawConfig): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
