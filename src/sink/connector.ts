/**
 * The sink connector's main-thread half (`io.tablesync.TableSinkConnector`). Sink tasks share the work through
 * the consumer group `connect-<name>`, which assigns topic partitions among them, so every task gets the same
 * config.
 */
import { SINK_CLASS } from "../config/connector_class.ts";
import type { RawConfig, TypedProps } from "../common/props.ts";
import type { ConnectorPlugin } from "../connect/task_api.ts";

export const tableSinkConnector: ConnectorPlugin = {
  kind: "sink",
  className: SINK_CLASS,
  taskConfigs(config: RawConfig, _props: TypedProps, maxTasks: number): RawConfig[] {
    return Array.from({ length: Math.max(1, maxTasks) }, () => ({ ...config }));
  },
};
