/** Source connector configs on the simulator (user `admin`) for the integration and fault tests; sinks: sink_connector.ts. */

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

/**
 * Many tables of one instance table: `svc.tables` of `aliases`, each alias reading the rows of `table` whose
 * `short_description` is its name, into `topic`.
 */
export function filteredAliases(
  table: string,
  topic: string,
  aliases: readonly string[],
): Record<string, string> {
  return {
    "svc.tables": aliases.join(","),
    ...Object.fromEntries(aliases.flatMap((a) => [
      [`svc.table.${a}.name`, table],
      [`svc.table.${a}.topic`, topic],
      [`svc.table.${a}.query`, `short_description=${a}`],
    ])),
  };
}
