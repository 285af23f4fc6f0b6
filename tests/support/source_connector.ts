/** The config of a source connector reading simulator tables (user `admin`) into topics, for integration tests. */
export function sourceConnectorConfig(
  simUrl: string,
  password: string,
  topics: Record<string, string>,
  extra: Record<string, string | number | boolean> = {},
): Record<string, string | number | boolean> {
  const tables = Object.keys(topics);
  return {
    "connector.class": "TableSourceConnector",
    "svc.url": simUrl,
    "svc.auth.username": "admin",
    "svc.auth.password": password,
    "svc.tables": tables.join(","),
    ...Object.fromEntries(
      tables.flatMap((t) => [[`svc.table.${t}.name`, t], [`svc.table.${t}.topic`, topics[t]]]),
    ),
    ...extra,
  };
}
