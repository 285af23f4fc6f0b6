/**
 * A row write (create, update, delete) as a request: what table_client.ts sends on its own and what the Batch API
 * (batch_api.ts, read_coalescer.ts) sends as one item of a batch. Its own file so that both sides use it without
 * importing each other.
 */
import type { HttpMethod } from "./http_client.ts";

export interface RowWrite {
  method: HttpMethod;
  path: string;
  query: URLSearchParams;
  json?: Record<string, unknown>;
}
