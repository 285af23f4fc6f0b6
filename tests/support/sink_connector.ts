/**
 * The config of a sink connector writing to a simulator table (user `admin`) for integration tests, beside
 * source_connector.ts. tests/sink/support/harness.ts has the in-process sink task's own (no daemon, no converters).
 *
 * ```ts
 * const config = sinkConnectorConfig(sim.url, PASSWORD, { topics: "in.map", ...SCHEMALESS_JSON });
 * ```
 */

/** Keys as strings, values as JSON without schemas: what a test producing plain JSON writes. */
export const SCHEMALESS_JSON = {
  "key.converter": "org.apache.kafka.connect.storage.StringConverter",
  "value.converter": "org.apache.kafka.connect.json.JsonConverter",
  "value.converter.schemas.enable": false,
} as const;

/** A sink into table incident of the simulator at `simUrl`; `extra` adds to it and wins (topics, the table...). */
export function sinkConnectorConfig<V extends string | number | boolean = string | number | boolean>(
  simUrl: string,
  password: string,
  extra: Record<string, V> = {},
): Record<string, string | V> {
  return {
    "connector.class": "TableSinkConnector",
    "svc.url": simUrl,
    "svc.auth.username": "admin",
    "svc.auth.password": password,
    "svc.sink.table": "incident",
    ...extra,
  };
}
