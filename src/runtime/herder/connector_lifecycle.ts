/**
 * Starting and stopping a connector's tasks: the config is checked, the connector's plugin splits it into task
 * configs, and each task runs in its own Web Worker (TaskRunner) with the connector's committed source offsets
 * and the shared permit pools. An invalid config or a failing plugin makes the connector FAILED with a trace.
 */
import type { RawConfig } from "../../config/types.ts";
import { errorCount, errorLines } from "../../config/analyze.ts";
import { exportPermitPools, permitPoolFor } from "../../instance/permit_registry.ts";
import { parseInstanceUrl } from "../../instance/instance_url.ts";
import { logger, type LogLevel } from "../../observability/log.ts";
import { redact } from "../../observability/redact.ts";
import type { OffsetStore } from "../offsets/types.ts";
import { sourceOffsetsOf } from "./connector_offsets.ts";
import { TaskRunner } from "../task_runner.ts";
import type { ConnectorValidator } from "./connector_validation.ts";
import type { ManagedConnector } from "./managed.ts";

const log = logger("herder");

export interface LifecycleOptions {
  /** The worker section as written (placeholders unresolved), implied defaults included. */
  readonly workerRaw: RawConfig;
  readonly logLevel: LogLevel;
  readonly offsets: OffsetStore;
  readonly validator: ConnectorValidator;
  /** `task.shutdown.graceful.timeout.ms`. */
  readonly gracefulTimeoutMs: number;
  /** False once the connector was deleted or replaced: its tasks must not (re)start. */
  readonly isCurrent: (m: ManagedConnector) => boolean;
}

export class ConnectorLifecycle {
  constructor(private readonly o: LifecycleOptions) {}

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
      m.state = m.target === "PAUSED" ? "PAUSED" : "RUNNING";
      m.trace = undefined;
      m.tasks = m.taskConfigs.map((tc, id) => this.#startTask(m, id, tc));
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

  /** Stops every task gracefully (they flush and commit), then makes their offsets durable. */
  async stopTasks(m: ManagedConnector): Promise<void> {
    const tasks = m.tasks;
    m.tasks = [];
    await Promise.all(tasks.map((t) => t.stop(this.o.gracefulTimeoutMs)));
    await this.o.offsets.flush();
  }

  async restartTask(m: ManagedConnector, index: number): Promise<void> {
    const id = m.tasks[index].taskId;
    await m.tasks[index].stop(this.o.gracefulTimeoutMs);
    await this.o.offsets.flush();
    if (this.o.isCurrent(m) && m.tasks[index]?.taskId === id) {
      m.tasks[index] = this.#startTask(m, id, m.taskConfigs[id]);
    }
  }

  #startTask(m: ManagedConnector, id: number, taskConfig: RawConfig): TaskRunner {
    const kind = m.plugin!.kind;
    const offsets = kind === "source" ? sourceOffsetsOf(this.o.offsets, m.name) : [];
    return new TaskRunner({
      type: "start",
      kind,
      connectorName: m.name,
      taskId: id,
      taskConfig,
      workerConfig: this.o.workerRaw,
      offsets,
      permitPools: exportPermitPools(),
      logLevel: this.o.logLevel,
      paused: m.target === "PAUSED",
    }, {
      onOffsets: (entries) => {
        try {
          this.o.offsets.set(m.name, entries);
        } catch (e) {
          log.error({ connector: m.name, err: e }, "invalid offsets from a task were not stored");
        }
      },
      onStateChange: () => {},
    });
  }
}
