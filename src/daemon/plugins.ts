/** The connector plugins this daemon ships (there is no plugin path: everything is in the binary). */
import type { ConnectorPlugin } from "../connect/task_api.ts";
import { tableSourceConnector } from "../source/connector.ts";
import { tableSinkConnector } from "../sink/connector.ts";

export const CONNECTOR_PLUGINS: readonly ConnectorPlugin[] = [tableSourceConnector, tableSinkConnector];
