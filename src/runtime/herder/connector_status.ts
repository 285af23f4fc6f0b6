/** The REST API's views of a connector: info, task configs and status, in Kafka Connect's shapes. */
import type { TaskRunner } from "../task_runner.ts";
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

export function connectorStatus(m: ManagedConnector, workerId: string) {
  const connector: Record<string, string> = { state: m.state, worker_id: workerId };
  if (m.trace) connector.trace = m.trace;
  return {
    name: m.name,
    connector,
    tasks: m.tasks.map((t) => taskStatusOf(t, workerId)),
    type: kindOf(m),
  };
}

export function taskStatusOf(t: TaskRunner, workerId: string) {
  const out: Record<string, string | number> = { id: t.taskId, state: t.state, worker_id: workerId };
  if (t.trace) out.trace = t.trace;
  return out;
}
