/**
 * The REST API's views of a connector: info, task configs and status, in Kafka Connect's shapes. In group mode a
 * status shows every task: this member's as it runs, the others' as their members last reported them.
 */
import type { TaskPlacement } from "./task_placement.ts";
import type { TaskRunner } from "./task_runner.ts";
import { shownConfig } from "./config_masking.ts";
import { kindOf, type ManagedConnector } from "./managed.ts";

export function connectorInfo(m: ManagedConnector) {
  return {
    name: m.name,
    config: shownConfig(m.config),
    tasks: m.taskConfigs.map((_, task) => ({ connector: m.name, task })),
    type: kindOf(m),
  };
}

export function taskConfigsOf(m: ManagedConnector) {
  return m.taskConfigs.map((config, task) => ({
    id: { connector: m.name, task },
    config: shownConfig(config),
  }));
}

export function connectorStatus(m: ManagedConnector, workerId: string, placement?: TaskPlacement) {
  const connector: Record<string, string> = {
    state: m.state,
    worker_id: placement?.connectorWorker(m.name) ?? workerId,
  };
  if (m.trace) connector.trace = m.trace;
  const tasks = placement
    ? m.taskConfigs.map((_, id) => groupTaskStatus(m, id, workerId, placement))
    : m.tasks.map((t) => taskStatusOf(t, workerId));
  return { name: m.name, connector, tasks, type: kindOf(m) };
}

/** Group mode: the task's state here when it runs here, else as its member last reported it. */
export function groupTaskStatus(m: ManagedConnector, id: number, workerId: string, placement: TaskPlacement) {
  const local = m.tasks.find((t) => t.taskId === id);
  if (local) return taskStatusOf(local, workerId);
  const remote = placement.remoteTask(m.name, id);
  const out: TaskStatusView = {
    id,
    state: remote?.state ?? "UNASSIGNED",
    worker_id: remote?.workerId ?? workerId,
  };
  if (remote?.trace) out.trace = remote.trace;
  if (remote?.warnings?.length) out.warnings = remote.warnings;
  return out;
}

/** A task's entry in a status: Connect's fields, plus tablesync's `warnings` (only when there are some). */
export interface TaskStatusView {
  id: number;
  state: string;
  worker_id: string;
  trace?: string;
  warnings?: string[];
}

export function taskStatusOf(t: TaskRunner, workerId: string): TaskStatusView {
  const out: TaskStatusView = { id: t.taskId, state: t.state, worker_id: workerId };
  if (t.trace) out.trace = t.trace;
  if (t.warnings.length > 0) out.warnings = t.warnings;
  return out;
}
