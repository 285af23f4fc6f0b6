/**
 * The task implementations a task thread can run, by connector kind. Imported statically (not by dynamic
 * specifiers) so that `deno compile` bundles them into the single binary.
 */
import type { ConnectorKind, SinkTask, SourceTask } from "../../connect/task_api.ts";
import { createSourceTask } from "../../source/task.ts";
import { createSinkTask } from "../../sink/task.ts";

export function newTask(kind: "source"): SourceTask;
export function newTask(kind: "sink"): SinkTask;
export function newTask(kind: ConnectorKind): SourceTask | SinkTask {
  return kind === "source" ? createSourceTask() : createSinkTask();
}
