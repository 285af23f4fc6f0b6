/**
 * Assembles `GET /metrics`: the process (memory, CPU, descriptors, heap), the main thread's own registry
 * (event-loop delay, its instance requests), task and connector states, every task's own metrics, and the
 * instance client counters.
 */
import type { Herder } from "../runtime/herder.ts";
import {
  type Labels,
  MetricsRegistry,
  type MetricsSnapshot,
  renderPrometheus,
} from "../observability/metrics.ts";
import { processMetrics } from "../observability/process_metrics.ts";
import { instanceMetrics } from "../instance/permit_registry.ts";

const TASK_STATES = ["UNASSIGNED", "RUNNING", "PAUSED", "FAILED", "RESTARTING"];
const CONNECTOR_STATES = ["UNASSIGNED", "RUNNING", "PAUSED", "STOPPED", "FAILED", "RESTARTING"];

export function renderDaemonMetrics(herder: Herder, mainThread: MetricsRegistry): string {
  const states = new MetricsRegistry();
  for (const c of herder.connectorStates()) {
    for (const s of CONNECTOR_STATES) {
      states.set(
        "tablesync_connector_state",
        { connector: c.connector, type: c.kind, state: s },
        c.state === s ? 1 : 0,
      );
    }
  }
  const snapshots: { snapshot: MetricsSnapshot; extraLabels?: Labels }[] = [
    { snapshot: processMetrics().snapshot() },
    { snapshot: mainThread.snapshot() },
    { snapshot: states.snapshot() },
  ];
  for (const { connector, task } of herder.allTasks()) {
    const labels = { connector, task: String(task.taskId) };
    const taskStates = new MetricsRegistry();
    for (const s of TASK_STATES) {
      taskStates.set("tablesync_task_state", { state: s }, task.state === s ? 1 : 0);
    }
    snapshots.push({ snapshot: taskStates.snapshot(), extraLabels: labels });
    snapshots.push({ snapshot: task.metrics, extraLabels: labels });
  }
  const instance = new MetricsRegistry();
  for (const m of instanceMetrics()) {
    const host = { instance: m.host };
    for (const [status, n] of Object.entries(m.requestsByStatus)) {
      instance.increment("tablesync_instance_requests_total", { ...host, status }, n);
    }
    if (m.ioErrors > 0) {
      instance.increment("tablesync_instance_requests_total", { ...host, status: "io_error" }, m.ioErrors);
    }
    instance.increment("tablesync_instance_retries_total", host, m.retries);
    instance.increment("tablesync_instance_permits_waited_total", host, m.permitsWaited);
    instance.increment("tablesync_instance_rate_limit_paced_total", host, m.rateLimitPaced);
    instance.increment("tablesync_instance_sessions_opened_total", host, m.sessionsOpened);
    instance.increment("tablesync_instance_session_waits_total", host, m.sessionWaits);
    instance.increment("tablesync_instance_not_done_total", host, m.notDone);
    instance.set("tablesync_instance_throttle_limit", host, m.limit);
    instance.set("tablesync_instance_in_flight", host, m.inFlight);
  }
  snapshots.push({ snapshot: instance.snapshot() });
  return renderPrometheus(snapshots);
}
