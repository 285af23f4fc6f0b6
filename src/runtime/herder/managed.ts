/** One connector as the herder holds it: its config, target and current state, and its running tasks. */
import type { ConnectorPlugin } from "../../connect/task_api.ts";
import type { RawConfig } from "../../common/props.ts";
import type { TargetState } from "./connector_state_store.ts";
import type { TaskRunner } from "./task_runner.ts";

export type ConnectorState = "RUNNING" | "PAUSED" | "STOPPED" | "FAILED" | "UNASSIGNED" | "RESTARTING";

export interface ManagedConnector {
  name: string;
  config: RawConfig;
  /** undefined when connector.class names no connector of this build (the connector is FAILED). */
  plugin: ConnectorPlugin | undefined;
  target: TargetState;
  state: ConnectorState;
  trace?: string;
  tasks: TaskRunner[];
  taskConfigs: RawConfig[];
  /** Hash of the config file's entry, when the connector comes from the file. */
  fileHash?: string;
  /** KIP-558: topics its tasks produced to or consumed from since it was started here or since a reset. */
  activeTopics: Set<string>;
}

/** Connect's connector type: "unknown" when the class names no connector of this build. */
export function kindOf(m: ManagedConnector): "source" | "sink" | "unknown" {
  return m.plugin?.kind ?? "unknown";
}
