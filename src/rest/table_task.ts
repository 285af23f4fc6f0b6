/**
 * The task running one table of a source connector here, for the table endpoints that ask it to do something
 * (`…/tables/<alias>/reconcile`, `…/tables/<alias>/snapshot`): 404 for an unknown connector or alias, 409 when
 * the table's task does not run on this worker (another member of the worker group, or not started).
 */
import type { TableProgress } from "../connect/table_progress.ts";
import type { Herder } from "../runtime/herder.ts";
import type { TaskRunner } from "../runtime/herder/task_runner.ts";
import { errorResponse } from "./responses.ts";

/** The runner of the table's task and the table's latest progress, or the error response. */
export function tableTask(
  herder: Herder,
  name: string,
  alias: string,
): { runner: TaskRunner; progress: TableProgress } | Response {
  const info = herder.info(name); // 404 for an unknown connector
  const aliases = String(info.config["svc.tables"] ?? "").split(",").map((a) => a.trim());
  if (info.type !== "source" || !aliases.includes(alias)) {
    return errorResponse(404, `connector ${name} has no table ${alias}`);
  }
  const runner = runnerOf(herder, name, alias);
  const progress = runner?.progress.find((t) => t.alias === alias);
  if (runner === undefined || progress === undefined) {
    return errorResponse(409, `table ${alias} of ${name} has no running task on this worker`);
  }
  return { runner, progress };
}

/** The runner whose task reports the table, if one runs here. */
export function runnerOf(herder: Herder, name: string, alias: string): TaskRunner | undefined {
  return herder.allTasks()
    .find((t) => t.connector === name && t.task.progress.some((t) => t.alias === alias))?.task;
}
