/** The source connector most daemon tests run: the simulator's incident table (alias `inc`) into `svc.incident`. */
export type ConnectorProps = Record<string, string | number | boolean>;

export function incidentSource(simUrl: string, password: string, extra: ConnectorProps = {}): ConnectorProps {
  return {
    "connector.class": "TableSourceConnector",
    "svc.url": simUrl,
    "svc.auth.username": "admin",
    "svc.auth.password": password,
    "svc.tables": "inc",
    "svc.table.inc.name": "incident",
    "svc.table.inc.topic": "svc.incident",
    ...extra,
  };
}
