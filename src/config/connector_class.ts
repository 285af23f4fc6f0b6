/** The connector classes this daemon runs, and the names that select them. */

export type ConnectorType = "source" | "sink";

export const SOURCE_CLASS = "io.tablesync.TableSourceConnector";
export const SINK_CLASS = "io.tablesync.TableSinkConnector";

const BY_NAME: Record<string, ConnectorType> = {
  "TableSourceConnector": "source",
  [SOURCE_CLASS]: "source",
  "TableSinkConnector": "sink",
  [SINK_CLASS]: "sink",
};

/** The connector type selected by a `connector.class` value, or undefined for an unknown class. */
export function connectorTypeOf(connectorClass: string | undefined): ConnectorType | undefined {
  return connectorClass === undefined ? undefined : BY_NAME[connectorClass.trim()];
}

export const KNOWN_CLASS_NAMES = Object.keys(BY_NAME);
