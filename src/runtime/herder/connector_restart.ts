/**
 * Kafka Connect's restart (KIP-745): which of a connector's instances a restart request covers, the status the
 * REST API answers with (those instances shown as RESTARTING), and the restart of what runs on this member.
 * A STOPPED connector restarts nothing. The herder decides where a request runs (here, or through the config
 * topic on every member in group mode) and runs it in the connector's command queue.
 */
import { logger } from "../../observability/log.ts";
import type { RestartRequest } from "./task_placement.ts";
import { ConnectRestError } from "./connect_rest_error.ts";
import type { ConnectorLifecycle } from "./connector_lifecycle.ts";
import type { connectorStatus } from "./connector_status.ts";
import type { ManagedConnector } from "./managed.ts";

const log = logger("runtime");

type ConnectorStatus = ReturnType<typeof connectorStatus>;

/** The connector instance restarts unless only failed instances are asked for and it has not failed. */
function connectorRestarts(m: ManagedConnector, { onlyFailed }: RestartRequest): boolean {
  return !onlyFailed || m.state === "FAILED";
}

/** A task restarts when tasks are included and either the connector restarts or the task has failed. */
function taskRestarts(m: ManagedConnector, request: RestartRequest, taskState: unknown): boolean {
  return request.includeTasks && (connectorRestarts(m, request) || taskState === "FAILED");
}

/** Marks in `status` (the connector's, taken before the restart begins) what the request restarts. */
export function showRestarting(
  status: ConnectorStatus,
  m: ManagedConnector,
  request: RestartRequest,
): ConnectorStatus {
  if (m.target === "STOPPED") return status;
  if (connectorRestarts(m, request)) status.connector.state = "RESTARTING";
  for (const t of status.tasks) {
    if (taskRestarts(m, request, t.state)) t.state = "RESTARTING";
  }
  return status;
}

/**
 * Restarts what runs here of the connector as `request` asks: the whole connector with its tasks when the
 * connector restarts with them (or has failed, or runs no task here), else only the tasks the request covers.
 */
export async function restartHere(
  m: ManagedConnector,
  request: RestartRequest,
  lifecycle: ConnectorLifecycle,
): Promise<void> {
  if (m.target === "STOPPED") return;
  if (
    connectorRestarts(m, request) && (request.includeTasks || m.state === "FAILED" || m.tasks.length === 0)
  ) {
    log.info(
      { connector: m.name, tasks: m.tasks.length },
      `restarting connector ${m.name} and its tasks here`,
    );
    m.state = "RESTARTING";
    await lifecycle.stopTasks(m);
    lifecycle.start(m);
    return;
  }
  const tasks = m.tasks.filter((t) => taskRestarts(m, request, t.state));
  for (const { taskId } of tasks) await restartTaskHere(m, taskId, lifecycle);
}

/** Restarts the connector's task `id`, which must run here. */
export async function restartTaskHere(
  m: ManagedConnector,
  id: number,
  lifecycle: ConnectorLifecycle,
): Promise<void> {
  const index = m.tasks.findIndex((t) => t.taskId === id);
  if (index < 0) throw new ConnectRestError(404, `Task ${m.name}-${id} not found`);
  await lifecycle.restartTask(m, index);
}
