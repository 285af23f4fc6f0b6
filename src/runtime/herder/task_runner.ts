/**
 * The main thread's handle on one task thread (the task's Web Worker): starts it, relays pause/resume/stop, records its state
 * and trace, hands committable offsets to the offset store and keeps its latest metrics.
 *
 * A task thread that throws uncaught, or stops answering, makes the task FAILED with a trace; the daemon and every
 * other task keep running. `restart` is a new TaskRunner.
 */
import { taskStopBudget } from "./task_stop_budget.ts";
import { emptySnapshot, type MetricsSnapshot } from "../../observability/metrics.ts";
import type { SnapshotRequest, TableProgress } from "../../connect/table_progress.ts";
import { logger, type LogSettings } from "../../observability/log.ts";
import { settlesWithin } from "../../common/delay.ts";
import { redact } from "../../observability/redact.ts";
import { type PermitPoolTransfer, reclaimPermits } from "../../instance/permit_registry.ts";
import type { MainToTaskThread, StartMessage, TaskThreadToMain } from "../task/thread_messages.ts";
import type { OffsetUpdate } from "../offsets/types.ts";

export type TaskState = "UNASSIGNED" | "RUNNING" | "PAUSED" | "FAILED" | "RESTARTING";

export interface TaskRunnerHooks {
  onOffsets(entries: OffsetUpdate[], committed: boolean): void;
  onStateChange(): void;
  /** Topics the task produced to or consumed from for the first time (since it started or was told to forget). */
  onTopics?(topics: string[]): void;
  /** The task failed on a transient fault (TransientTaskFailure): the daemon restarts it by itself. */
  onTransientFailure?(): void;
}

/** A task thread that sends nothing for this long while it should be running is considered dead. */
const SILENCE_LIMIT_MS = 30_000;

export interface TaskRunnerOptions {
  /** The task thread's module; task/task_thread.ts unless a test supervises another script. */
  taskThreadUrl?: URL;
  /** Silence after which a running task thread counts as dead. Default 30000 (task threads report metrics every 2 s). */
  silenceLimitMs?: number;
  /**
   * The task thread starts once this resolves (an exactly-once source task waits for its zombie-fencing round); a
   * rejection fails the task. Stopped meanwhile, the task never starts.
   */
  startAfter?: Promise<void>;
}

const log = logger("runtime");

export class TaskRunner {
  readonly connectorName: string;
  readonly taskId: number;
  state: TaskState = "UNASSIGNED";
  trace: string | undefined;
  metrics: MetricsSnapshot = emptySnapshot();
  /** The latest progress of a source task's tables (empty for sinks and before the first report). */
  progress: TableProgress[] = [];
  /** The task's standing warnings (status `warnings`): conditions it waits out rather than fails on. */
  warnings: string[] = [];

  #thread: Worker | null = null;
  #hooks: TaskRunnerHooks;
  #stopped: Promise<void>;
  #resolveStopped!: () => void;
  /** On the monotonic clock: a step of the host's wall clock must not make a live task thread look silent. */
  #lastHeard = performance.now();
  #watchdog: ReturnType<typeof setInterval> | undefined;

  #options: Required<Omit<TaskRunnerOptions, "startAfter">>;
  /** Stopped (or killed) before its task thread was launched. */
  #cancelled = false;
  /** The start message while the task thread waits to be launched (a pause or resume meanwhile goes into it). */
  #waiting: StartMessage | null = null;
  #realm: number | undefined;

  constructor(start: StartMessage, hooks: TaskRunnerHooks, options: TaskRunnerOptions = {}) {
    this.connectorName = start.connectorName;
    this.taskId = start.taskId;
    this.#hooks = hooks;
    this.#options = {
      taskThreadUrl: options.taskThreadUrl ?? new URL("../task/task_thread.ts", import.meta.url),
      silenceLimitMs: options.silenceLimitMs ?? SILENCE_LIMIT_MS,
    };
    this.#stopped = new Promise((resolve) => this.#resolveStopped = resolve);
    this.#realm = (start.permitPools as Partial<PermitPoolTransfer> | undefined)?.realm;
    if (!options.startAfter) this.#launch(start);
    else {
      this.#waiting = start;
      options.startAfter.then(
        () => {
          this.#waiting = null;
          if (!this.#cancelled) this.#launch(start);
        },
        (e) => {
          if (!this.#cancelled) this.#fail(`the task could not start: ${(e as Error)?.stack ?? e}`);
        },
      );
    }
  }

  get label(): string {
    return `${this.connectorName}-${this.taskId}`;
  }

  #launch(start: StartMessage): void {
    const thread = new Worker(this.#options.taskThreadUrl, {
      type: "module",
      name: `task ${this.label}`,
    });
    this.#thread = thread;
    thread.onmessage = (event: MessageEvent<TaskThreadToMain>) => this.#onMessage(event.data);
    thread.onerror = (event: ErrorEvent) => {
      // Keep an uncaught error in a task from reaching the main thread's own error handling.
      event.preventDefault();
      const error = event.error as Error | undefined;
      this.#fail(error?.stack ?? `${event.message} (${event.filename}:${event.lineno})`);
    };
    thread.onmessageerror = () => this.#fail("task thread sent a message that could not be read");
    const silence = this.#options.silenceLimitMs;
    const every = Math.min(5000, silence / 2);
    let lastTick = performance.now();
    this.#watchdog = setInterval(() => {
      const now = performance.now();
      // A tick far later than due means this thread did not run either (the process stopped by SIGSTOP or a
      // suspended VM, or a blocked event loop): the task thread's silence then says nothing about the task thread, so it
      // is judged from now on, after it had a chance to speak.
      if (now - lastTick > every + silence / 2) this.#lastHeard = now;
      lastTick = now;
      if ((this.state === "RUNNING" || this.state === "PAUSED") && now - this.#lastHeard > silence) {
        this.#fail(`task thread stopped responding (nothing heard for ${silence / 1000} s)`);
      }
    }, every);
    this.#post(start);
  }

  #onMessage(message: TaskThreadToMain): void {
    this.#lastHeard = performance.now();
    switch (message.type) {
      case "state":
        if (message.state === "FAILED") {
          this.#fail(message.trace ?? "task failed");
          if (message.transient) this.#hooks.onTransientFailure?.();
        } else {
          this.state = message.state;
          this.#hooks.onStateChange();
        }
        break;
      case "offsets":
        this.#hooks.onOffsets(message.entries, message.committed === true);
        break;
      case "metrics":
        this.metrics = message.snapshot;
        break;
      case "progress":
        this.progress = message.tables;
        break;
      case "topics":
        this.#hooks.onTopics?.(message.topics);
        break;
      case "warnings":
        this.warnings = message.warnings;
        this.#hooks.onStateChange();
        break;
      case "stopped":
        if (message.trace) this.#fail(message.trace);
        this.#terminate();
        break;
    }
  }

  #fail(trace: string): void {
    if (this.state === "FAILED") return;
    this.state = "FAILED";
    this.trace = redact(trace);
    this.warnings = []; // a failed task waits for nothing: its trace says what is wrong
    log.error({ task: this.label, trace: this.trace }, `task ${this.label} failed`);
    this.#hooks.onStateChange();
    this.#terminate();
  }

  #terminate(): void {
    clearInterval(this.#watchdog);
    if (this.#thread) {
      this.#thread.terminate();
      // Permits the task thread held when it ended (crash, kill, timeout) go back to the shared pool.
      if (this.#realm !== undefined) reclaimPermits(this.#realm);
    }
    this.#thread = null;
    this.#resolveStopped();
  }

  #post(message: MainToTaskThread): void {
    try {
      this.#thread?.postMessage(message);
    } catch (e) {
      this.#fail(`cannot reach task thread: ${(e as Error).message}`);
    }
  }

  /** Always forwarded: a task thread still starting applies it once its driver exists. */
  pause(): void {
    if (this.#waiting) this.#waiting.paused = true;
    if (this.state !== "FAILED") this.#post({ type: "pause" });
  }

  resume(): void {
    if (this.#waiting) this.#waiting.paused = false;
    if (this.state !== "FAILED") this.#post({ type: "resume" });
  }

  /** New log format and levels (PUT /admin/loggers): the task logs with them from now on. */
  setLogSettings(settings: LogSettings): void {
    if (this.#waiting) this.#waiting.logSettings = settings;
    this.#post({ type: "logSettings", settings });
  }

  /** A source task starts a reconcile pass of the table `alias` (POST /connectors/<n>/tables/<alias>/reconcile). */
  reconcile(alias: string): void {
    this.#post({ type: "reconcile", alias });
  }

  /** A source task starts a re-snapshot of the table `alias` (POST /connectors/<n>/tables/<alias>/snapshot). */
  snapshot(alias: string, request: SnapshotRequest): void {
    this.#post({ type: "snapshot", alias, request });
  }

  /** The task reports each topic again on its next use (PUT /connectors/<name>/topics/reset). */
  resetTopics(): void {
    this.#post({ type: "resetTopics" });
  }

  /** Asks the task to finish in-flight work and commit; terminates it when its stop budget runs out first. */
  async stop(timeoutMs: number): Promise<void> {
    this.#cancelled = true;
    if (!this.#thread) return;
    const budget = taskStopBudget(timeoutMs);
    this.#post({ type: "stop", budget });
    if (!(await settlesWithin(this.#stopped, budget.terminateAfterMs))) {
      log.warn({ task: this.label, timeoutMs }, `task ${this.label} did not stop in time; terminating it`);
      this.#terminate();
    }
    if (this.state !== "FAILED") {
      this.state = "UNASSIGNED";
      this.warnings = []; // a stopped task waits for nothing
    }
  }

  /** Ends the task thread at once (second signal, or daemon exit). */
  kill(): void {
    this.#cancelled = true;
    this.#terminate();
  }
}
