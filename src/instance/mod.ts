/**
 * The instance client: the table REST API with shared permits (the throttler: permit_pool.ts,
 * adaptive_limit.ts), retries, limits,
 * authentication, TLS and proxy. Connectors use `TableClient`; the runtime shares permit pools with task
 * workers through `exportPermitPools` / `importPermitPools`; the metrics endpoint reads `instanceMetrics`.
 */
export { type InstanceClientOptions, instanceOptionsFromProps } from "./options.ts";
export type {
  BasicAuthOptions,
  HttpLimits,
  OAuthOptions,
  ProxyOptions,
  RetryOptions,
  StoreOptions,
} from "./options.ts";
export {
  type DisplayValue,
  type ListPage,
  type ListParams,
  type RowParams,
  type SlicedListPage,
  TableClient,
  type UpdateMethod,
} from "./table_client.ts";
export type { TableRow } from "./table_rows.ts";
export { BatchWriter, type BatchWriterOptions } from "./batch_writer.ts";
export { aggregateCount, type CountResult } from "./aggregate_count.ts";
export type { FieldDefinition, TableDictionary } from "./dictionary.ts";
export {
  type HttpClientHooks,
  type HttpMethod,
  InstanceHttpClient,
  type InstanceRequest,
  type InstanceResponse,
} from "./http_client.ts";
export {
  condition,
  containsOrderBy,
  EncodedQuery,
  keysetAfter,
  keysetAtOrBefore,
  type Operator,
  utcLiteral,
} from "./encoded_query.ts";
export { type InstanceAddress, parseInstanceUrl } from "./instance_url.ts";
export { InstanceClock, parseHttpDate } from "./instance_clock.ts";
export {
  AmbiguousRequestError,
  InstanceClockError,
  InstanceConfigError,
  InstanceError,
  InstanceHttpError,
  InstanceRetriableError,
  ResponseTooLargeError,
} from "./errors.ts";
export {
  exportPermitPools,
  importPermitPools,
  instanceMetrics,
  permitPoolFor,
  type PermitPoolTransfer,
  reclaimPermits,
} from "./permit_registry.ts";
export type { InstanceHostMetrics } from "./instance_metrics.ts";
export type { Permit, PermitPool } from "./permit_pool.ts";
