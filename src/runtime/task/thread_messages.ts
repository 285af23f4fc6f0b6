/**
 * Messages between the main thread (herder) and a task thread (the task's Web Worker). Everything is structured-cloneable.
 *
 * main → task thread: start, pause, resume, stop; new log settings (PUT /admin/loggers); forget the topics reported
 * (PUT /connectors/<name>/topics/reset).
 * task thread → main: state changes (with a trace on failure), committable source offsets, metrics snapshots,
 * source table progress, topics used for the first time (KIP-558), the task's standing warnings (the whole
 * list, each time it changes), and `stopped` once the task has flushed and committed.
 */
import type { TaskStopBudget } from "../herder/task_stop_budget.ts";
import type { MetricsSnapshot } from "../../observability/metrics.ts";
import type { ConnectorKind } from "../../connect/task_api.ts";
import type { LogSettings } from "../../observability/log.ts";
import type { OffsetUpdate } from "../offsets/types.ts";
import type { SourceOffsetEntry } from "../../connect/task_api.ts";
import type { SnapshotRequest, TableProgress } from "../../connect/table_progress.ts";

export interface StartMessage {
  type: "start";
  kind: ConnectorKind;
  connectorName: string;
  taskId: number;
  /** The task config with placeholders unresolved: the task thread resolves them, so secrets never cross threads twice. */
  taskConfig: Record<string, string>;
  /** The worker section, placeholders unresolved, implied defaults included. */
  workerConfig: Record<string, string>;
  /** Committed source offsets of this connector (empty for sinks). */
  offsets: SourceOffsetEntry[];
  /** Shared permit pools per instance host (from src/instance), so every task thread respects one limit. */
  permitPools: unknown;
  /** The main thread's log format and levels; `logSettings` messages follow when they change. */
  logSettings: LogSettings;
  /** Start paused (target state PAUSED). */
  paused: boolean;
}

export type MainToTaskThread =
  | StartMessage
  | { type: "pause" }
  | { type: "resume" }
  | { type: "logSettings"; settings: LogSettings }
  | { type: "resetTopics" }
  | { type: "reconcile"; alias: string }
  | { type: "snapshot"; alias: string; request: SnapshotRequest }
  | { type: "stop"; budget: TaskStopBudget };

export type TaskRunState = "RUNNING" | "PAUSED" | "FAILED";

export type TaskThreadToMain =
  /** `transient`: a failure the daemon restarts the task after by itself (TransientTaskFailure). */
  | { type: "state"; state: TaskRunState; trace?: string; transient?: boolean }
  /** `committed`: an exactly-once task already wrote these in its transaction; the store must not write them. */
  | { type: "offsets"; entries: OffsetUpdate[]; committed?: boolean }
  | { type: "metrics"; snapshot: MetricsSnapshot }
  | { type: "progress"; tables: TableProgress[] }
  | { type: "topics"; topics: string[] }
  | { type: "warnings"; warnings: string[] }
  | { type: "stopped"; trace?: string };
