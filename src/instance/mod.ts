/**
 * The instance client: the table REST API with shared permits (the throttler: permit_pool.ts,
 * adaptive_limit.ts), retries, limits,
 * authentication, TLS and proxy. Connectors use `TableClient` through this module; the runtime and the
 * daemon import the permit registry (permit_registry.ts) directly to share permit pools with task threads
 * and to read the metrics.
 */
export { instanceOptionsFromProps } from "./options.ts";
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
