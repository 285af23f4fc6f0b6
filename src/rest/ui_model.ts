/**
 * What the status page shows, gathered from the herder in one place: each connector with its health (a failed
 * task makes the whole card FAILED or DEGRADED, whatever the connector's own state), its tasks, and for sources
 * each table's progress and rows per second, for sinks each task's records written, record errors (every stage:
 * converters, transforms, the write), retried and dead-lettered records and consumer lag. Numbers are the
 * server's (the lag and the ETA as the source task reports them).
 */
import type { Herder } from "../runtime/herder.ts";
import type { TaskStatusView } from "../runtime/herder/connector_status.ts";
import { type MetricSample, sumOf } from "../observability/metrics.ts";
import type { RatePoint, ThroughputHistory } from "./ui_history.ts";
import type { SnapshotProgress } from "../connect/table_progress.ts";

export interface UiTask {
  id: number;
  state: string;
  worker: string;
  trace: string | null;
  warnings: string[];
}

export interface UiThroughput {
  /** Per second now; null before the history has a sample to compare with. */
  perSecond: number | null;
  /** The last 15 minutes, for the chart. */
  points: RatePoint[];
}

export interface UiSourceTable extends UiThroughput {
  alias: string;
  table: string;
  task: number;
  phase: string;
  rowsEmitted: number;
  rowsRemaining: number | null;
  /** Rows emitted out of emitted plus remaining; 100 once streaming; null while unknown. */
  percent: number | null;
  etaSeconds: number | null;
  lagSeconds: number | null;
  lastError: { message: string; at: string } | null;
  /** The latest warning about the table's data (the instance went back in time), or null. */
  warning: { message: string; at: string } | null;
  /** The last reconcile pass that found the topic equal to the table began then; null when none (or off). */
  verifiedThrough: string | null;
  /** Repairs of the last reconcile pass; null before one ended (or off). */
  lastRepairs: number | null;
  /** The table's latest re-snapshot as its task reports it; null before one. */
  snapshot: SnapshotProgress | null;
}

export interface UiSinkTask extends UiThroughput {
  task: number;
  written: number;
  /** Records that failed at any stage (converter, transform, write), tolerated or not: `tablesync_errors_total`. */
  errors: number;
  retried: number;
  deadLettered: number;
  /** Records still to consume over the task's partitions; null before the first fetch. */
  lag: number | null;
}

export interface UiConnector {
  name: string;
  type: string;
  connectorClass: string;
  state: string;
  /** FAILED when the connector or every task failed, DEGRADED when some tasks failed, else the state. */
  health: string;
  trace: string | null;
  tasks: UiTask[];
  tables: UiSourceTable[];
  sinkTasks: UiSinkTask[];
  /** Tasks another member of the worker group runs: their tables and numbers are on that member's page. */
  remoteTasks: { id: number; worker: string }[];
}

const sourceKey = (connector: string, alias: string) => `source\u0000${connector}\u0000${alias}`;
const sinkKey = (connector: string, task: number) => `sink\u0000${connector}\u0000${task}`;

/** Every series' running count, for the throughput history. */
export function throughputCounts(herder: Herder): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { connector, kind, task } of herder.allTasks()) {
    if (kind === "sink") {
      counts.set(
        sinkKey(connector, task.taskId),
        sumOf(task.metrics.counters, "tablesync_sink_records_written_total"),
      );
      continue;
    }
    for (const t of task.progress) {
      const key = sourceKey(connector, t.alias);
      counts.set(key, (counts.get(key) ?? 0) + t.rows_emitted);
    }
  }
  return counts;
}

export function uiModel(
  herder: Herder,
  history: ThroughputHistory | undefined,
  now = Date.now(),
): UiConnector[] {
  const throughput = (key: string, current: number): UiThroughput => ({
    perSecond: history?.rate(key, current, now) ?? null,
    points: history?.series(key, current, now) ?? [],
  });
  const local = herder.allTasks();
  return herder.names().sort().map((name) => {
    const status = herder.status(name);
    const info = herder.info(name);
    const tasks = status.tasks.map(uiTask);
    const runners = local.filter((t) => t.connector === name).map((t) => t.task);
    const remoteTasks = tasks
      .filter((t) => t.state !== "UNASSIGNED" && !runners.some((r) => r.taskId === t.id))
      .map((t) => ({ id: t.id, worker: t.worker }));
    const failed = tasks.filter((t) => t.state === "FAILED").length;
    const state = status.connector.state;
    const health = state === "FAILED" || (failed > 0 && failed === tasks.length)
      ? "FAILED"
      : failed > 0
      ? "DEGRADED"
      : state;
    const tables = status.type === "source"
      ? runners.flatMap((r) =>
        r.progress.map((t): UiSourceTable => ({
          alias: t.alias,
          table: t.table,
          task: r.taskId,
          phase: t.phase,
          rowsEmitted: t.rows_emitted,
          rowsRemaining: t.rows_remaining,
          percent: percentOf(t.phase, t.rows_emitted, t.rows_remaining),
          etaSeconds: t.eta_seconds_estimate,
          lagSeconds: t.lag_seconds,
          lastError: t.last_error,
          warning: t.warning ?? null,
          verifiedThrough: t.reconcile?.verified_through ?? null,
          lastRepairs: t.reconcile?.last_pass
            ? Object.values(t.reconcile.last_pass.repairs).reduce((a, b) => a + b, 0)
            : null,
          snapshot: t.snapshot ?? null,
          ...throughput(sourceKey(name, t.alias), t.rows_emitted),
        }))
      ).sort((a, b) => a.alias.localeCompare(b.alias))
      : [];
    const sinkTasks = status.type === "sink"
      ? runners.map((r): UiSinkTask => {
        const { counters, gauges } = r.metrics;
        const written = sumOf(counters, "tablesync_sink_records_written_total");
        return {
          task: r.taskId,
          written,
          errors: sumOf(counters, "tablesync_errors_total"),
          retried: sumOf(counters, "tablesync_sink_records_retried_total"),
          deadLettered: sumOf(counters, "tablesync_dlq_records_total"),
          lag: lagOf(gauges),
          ...throughput(sinkKey(name, r.taskId), written),
        };
      }).sort((a, b) => a.task - b.task)
      : [];
    return {
      name,
      type: status.type,
      connectorClass: info.config["connector.class"] ?? "",
      state,
      health,
      trace: status.connector.trace ?? null,
      tasks,
      tables,
      sinkTasks,
      remoteTasks,
    };
  });
}

function uiTask(status: TaskStatusView): UiTask {
  return {
    id: status.id,
    state: status.state,
    worker: status.worker_id,
    trace: status.trace ?? null,
    warnings: status.warnings ?? [],
  };
}

function percentOf(phase: string, emitted: number, remaining: number | null): number | null {
  if (phase === "streaming") return 100;
  if (remaining === null) return null;
  const total = emitted + remaining;
  return total === 0 ? 100 : Math.floor((1000 * emitted) / total) / 10;
}

function lagOf(gauges: readonly MetricSample[]): number | null {
  const partitions = gauges.filter((g) => g.name === "tablesync_sink_consumer_lag_records");
  return partitions.length === 0 ? null : partitions.reduce((sum, g) => sum + g.value, 0);
}
