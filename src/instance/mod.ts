/**
 * The instance client: the table REST API with shared permits (the throttler: permit_pool.ts,
 * adaptive_limit.ts), retries, limits, authentication, TLS and proxy. The connectors use it through this module:
 *
 * ```ts
 * const client = await TableClient.create(instanceSettingsFromProps(props));
 * const query = keysetAfter("sys_updated_on", "2024-01-01 00:00:00", "sys_id", lastSysId);
 * const page = await client.list("incident", { query, limit: 500 });
 * ```
 *
 * Imported directly, not through here, by the main thread and the task threads' set-up: the permit registry
 * (permit_registry.ts: runtime/herder/task_runner.ts, runtime/herder/connector_lifecycle.ts,
 * runtime/group/worker_group.ts, runtime/task/task_thread.ts, daemon/daemon_metrics.ts), the request metrics
 * (instance_metrics.ts: runtime/task/task_thread.ts, daemon/daemon.ts), an instance's address
 * (instance_url.ts: runtime/herder/connector_lifecycle.ts), and the Batch API's read coalescer
 * (read_coalescer.ts: source/poll_batching.ts).
 */
export { instanceSettingsFromProps } from "./settings.ts";
export { type DisplayValue, type SlicedListPage, TableClient } from "./table_client.ts";
export { errorEnvelopeText, type TableRow } from "./table_rows.ts";
export { BatchWriter } from "./batch_writer.ts";
export { ReadCoalescer } from "./read_coalescer.ts";
export { aggregateCount, aggregateMin } from "./aggregate_count.ts";
export type { TableDictionary } from "./dictionary.ts";
export { condition, EncodedQuery, keysetAfter, keysetAtOrBefore } from "./encoded_query.ts";
export {
  AmbiguousRequestError,
  InstanceClockError,
  InstanceConfigError,
  InstanceHttpError,
  InstanceRetriableError,
  ResponseTooLargeError,
} from "./errors.ts";
export { HTML_PAGE_MESSAGE, InstanceHtmlPageError } from "./html_page.ts";
export { queryFields } from "./query_fields.ts";
