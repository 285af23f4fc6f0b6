/**
 * The table calls the connectors make, typed: list, get, create, update (PATCH or PUT), delete, the
 * dictionary lookup and the instance clock. Every call goes through InstanceHttpClient (permits, retries,
 * auth, limits).
 *
 * Statuses: 2xx is success; a 404 on get/delete is an answer (null / "not_found"); any other status outside
 * the retryable set is an `InstanceHttpError`. A 2xx whose body is not the expected JSON envelope (a page cut
 * off by the instance's 60 s quota) is retriable: the same request may work later, but repeating it at once
 * rarely does, so it surfaces as `InstanceRetriableError` without in-process retries. For a POST it is an
 * `AmbiguousRequestError` instead: the row may exist. A 202 with an empty body never gets here: the HTTP client
 * retries it as not done (not_done.ts), reads and writes alike, and it is never read as an empty page.
 */
import { DictionaryReader, type TableDictionary } from "./dictionary.ts";
import { InstanceClockError } from "./errors.ts";
import {
  type HttpClientHooks,
  type HttpMethod,
  InstanceHttpClient,
  type InstanceResponse,
} from "./http_client.ts";
import type { InstanceAddress } from "./instance_url.ts";
import type { InstanceSettings } from "./settings.ts";
import { describeUnusableDate } from "./instance_clock.ts";
import { type ResultEnd, resultEnd, resultSlices } from "./result_slices.ts";
import type { TableRow } from "./table_rows.ts";
import type { ReadCoalescer } from "./read_coalescer.ts";
import type { RowWrite } from "./row_write.ts";
import { expectResult, httpError, retriableWhenBroken, totalCountOf } from "./table_responses.ts";
import { refuseHtmlPage } from "./html_page.ts";

export type DisplayValue = "false" | "true" | "all";

/** Parameters shared by the calls that return rows. */
export interface RowParams {
  /** sysparm_fields; absent or empty: every field. */
  fields?: readonly string[];
  /** sysparm_display_value (sent only when given). */
  displayValue?: DisplayValue;
  /** sysparm_exclude_reference_link (sent only when given). */
  excludeReferenceLink?: boolean;
  /** true sends sysparm_query_no_domain=true; false or absent sends nothing (the instance default). */
  queryNoDomain?: boolean;
  signal?: AbortSignal;
}

export interface ListParams extends RowParams {
  /** sysparm_query, e.g. built with EncodedQuery; absent or empty: every row. */
  query?: string;
  /** sysparm_limit (batch size). */
  limit: number;
  /** sysparm_query_category (sent only when set). */
  queryCategory?: string | null;
  /**
   * true asks the instance to count the rows the query matches (`X-Total-Count`, counted before access control
   * drops rows the user may not read); false or absent sends `sysparm_no_count=true` (no count query).
   */
  count?: boolean;
  /**
   * A small page is expected (an idle table's window query): the read may travel as an item of a Batch API
   * request with other tables' reads, when the client coalesces reads (`coalesceReads`; read_coalescer.ts).
   */
  coalesce?: boolean;
}

/** What a page's response says besides its rows. */
interface PageFacts {
  /** The instance clock from the response's Date header. */
  instanceTime: Date | null;
  /** `X-Total-Count` when a count was asked for and the instance sent a valid one; null otherwise. */
  total: number | null;
}

export interface ListPage extends PageFacts {
  rows: TableRow[];
}

/**
 * A page whose rows are parsed a slice at a time while they are read (result_slices.ts): the page's body stays
 * as bytes, never as one string and one array of every row. Reading the slices may throw
 * `InstanceRetriableError` when the body proves not to be valid JSON half-way (rows before were handed out).
 */
export interface SlicedListPage extends PageFacts {
  slices: Iterable<TableRow[]>;
  /** The body's size (after decompression): what the page holds in memory until its slices are read. */
  bytes: number;
  /**
   * At most how many rows the page holds and its last row, read before the slices are (result_slices.ts's
   * resultEnd): a guess to act on early (reading the next page ahead) only where a wrong one is found out later.
   */
  end(): ResultEnd | null;
}

export type UpdateMethod = "PATCH" | "PUT";

const TABLE_NAME = /^[A-Za-z0-9_$]+$/;

export class TableClient {
  private readonly dictionaries: DictionaryReader;
  /** The body size of the last page read with `listSliced`, per table: the size expected of the next. */
  readonly #lastPageBytes = new Map<string, number>();
  /** Gathers reads marked `coalesce` into Batch API requests; null: every read is a request of its own. */
  #coalescer: ReadCoalescer | null = null;

  constructor(readonly http: InstanceHttpClient, dictionaryTtlMs?: number) {
    this.dictionaries = new DictionaryReader((table, options) => this.list(table, options), dictionaryTtlMs);
    ({ create: this.create, update: this.update, delete: this.delete } = rowWriteCalls((write, signal) =>
      this.#write(write, signal)
    ));
  }

  static async create(settings: InstanceSettings, hooks?: HttpClientHooks): Promise<TableClient> {
    return new TableClient(await InstanceHttpClient.create(settings, hooks));
  }

  get instance(): InstanceAddress {
    return this.http.address;
  }

  close(): void {
    this.#coalescer?.close();
    this.http.close();
  }

  /** Reads marked `coalesce` go through `coalescer` from now on (null: one request each). */
  coalesceReads(coalescer: ReadCoalescer | null): void {
    this.#coalescer = coalescer;
  }

  /**
   * One page of rows. Sends `sysparm_no_count=true` unless a count is asked for, and always
   * `sysparm_suppress_pagination_header=true` (no Link header); paging is the caller's keyset, never
   * `sysparm_offset`.
   */
  async list(table: string, params: ListParams): Promise<ListPage> {
    const response = await this.#listResponse(table, params);
    const rows = expectResult(response, "GET", tablePath(table), "array") as TableRow[];
    return { rows, instanceTime: response.date, total: this.#totalOf(response, params) };
  }

  /** One page of rows like `list`, its rows parsed a slice of about `sliceBytes` at a time (SlicedListPage). */
  async listSliced(table: string, params: ListParams, sliceBytes?: number): Promise<SlicedListPage> {
    const last = this.#lastPageBytes.get(table);
    // A page is read into one buffer of about the last page's size (a quarter more: pages of the same table and
    // limit differ by their rows' lengths), instead of one doubled from 16 KiB with each copied into the next.
    const response = await this.#listResponse(
      table,
      params,
      last === undefined ? undefined : Math.ceil(last * 1.25),
    );
    this.#lastPageBytes.set(table, response.body.byteLength);
    const path = tablePath(table);
    const sliced = response.status >= 200 && response.status < 300
      ? resultSlices(response.body, sliceBytes)
      : null;
    const slices = sliced === null
      ? [expectResult(response, "GET", path, "array") as TableRow[]]
      : retriableWhenBroken(sliced, response, path);
    return {
      slices,
      bytes: response.body.byteLength,
      end: () => {
        if (sliced !== null) return resultEnd(response.body);
        const rows = (slices as TableRow[][])[0];
        return { rowsAtMost: rows.length, last: rows.at(-1) ?? null };
      },
      instanceTime: response.date,
      total: this.#totalOf(response, params),
    };
  }

  #listResponse(table: string, params: ListParams, expectedBodyBytes?: number): Promise<InstanceResponse> {
    const query = rowQuery(params);
    if (params.query) query.set("sysparm_query", params.query);
    query.set("sysparm_limit", String(params.limit));
    if (params.queryCategory) query.set("sysparm_query_category", params.queryCategory);
    if (!params.count) query.set("sysparm_no_count", "true");
    query.set("sysparm_suppress_pagination_header", "true");
    if (params.coalesce && this.#coalescer?.active) {
      return this.#coalescer.request({ method: "GET", path: tablePath(table), query }, params.signal);
    }
    return this.http.request({
      method: "GET",
      path: tablePath(table),
      query,
      signal: params.signal,
      expectedBodyBytes,
    });
  }

  #totalOf(response: InstanceResponse, params: ListParams): number | null {
    return params.count ? totalCountOf(response.headers.get("x-total-count")) : null;
  }

  /** One row by sys_id, or null when it does not exist (or access control hides it: the instance says 404). */
  async get(table: string, sysId: string, params: RowParams = {}): Promise<TableRow | null> {
    const path = rowPath(table, sysId);
    const response = await this.send("GET", path, rowQuery(params), undefined, params.signal);
    if (response.status === 404) return null;
    return expectResult(response, "GET", path, "object") as TableRow;
  }

  /** Row writes, one request each (see RowWriteCalls). */
  readonly create: RowWriteCalls["create"];
  readonly update: RowWriteCalls["update"];
  readonly delete: RowWriteCalls["delete"];

  #write(write: RowWrite, signal?: AbortSignal): Promise<InstanceResponse> {
    return this.send(write.method, write.path, write.query, write.json, signal);
  }

  /** The dictionary of a table and its ancestors (cached), or null when unknown or not readable. */
  dictionary(table: string, signal?: AbortSignal): Promise<TableDictionary | null> {
    return this.dictionaries.lookup(table, signal);
  }

  /** Forgets the cached dictionary of `table`. */
  invalidateDictionary(table: string): void {
    this.dictionaries.invalidate(table);
  }

  /**
   * Reads the instance clock with a one-row request to `table` (one the integration user can read) and
   * returns its `Date` header.
   */
  async readClock(table: string, signal?: AbortSignal): Promise<Date> {
    const query = rowQuery({ fields: ["sys_id"] });
    query.set("sysparm_limit", "1");
    query.set("sysparm_no_count", "true");
    query.set("sysparm_suppress_pagination_header", "true");
    const path = tablePath(table);
    const response = await this.send("GET", path, query, undefined, signal);
    expectResult(response, "GET", path, "array");
    if (!response.date) {
      throw new InstanceClockError(
        { method: "GET", path },
        describeUnusableDate(response.headers.get("date")),
      );
    }
    return response.date;
  }

  private send(
    method: HttpMethod,
    path: string,
    query: URLSearchParams,
    json: unknown,
    signal?: AbortSignal,
  ): Promise<InstanceResponse> {
    return this.http.request({ method, path, query, json, signal });
  }
}

/**
 * Create, update and delete with one contract whatever carries them: single requests (TableClient) or items of
 * Batch API requests (BatchWriter). `send` answers a write with the instance's response to it.
 */
export interface RowWriteCalls {
  /**
   * Inserts a row; returns the row as written. A request sent without a response (timeout, reset) throws
   * `AmbiguousRequestError` and is never retried here: the caller decides (svc.sink.create.ambiguous.behavior).
   */
  create(table: string, body: Record<string, unknown>, params?: RowParams): Promise<TableRow>;
  /** Updates a row with PATCH (default) or PUT; returns the row as written. sys_id never goes in the body. */
  update(
    table: string,
    sysId: string,
    body: Record<string, unknown>,
    method?: UpdateMethod,
    params?: RowParams,
  ): Promise<TableRow>;
  /** Deletes a row; "not_found" when the instance says 404 (already gone, or hidden by access control). */
  delete(
    table: string,
    sysId: string,
    params?: Pick<RowParams, "queryNoDomain" | "signal">,
  ): Promise<"deleted" | "not_found">;
}

export function rowWriteCalls(
  send: (write: RowWrite, signal?: AbortSignal) => Promise<InstanceResponse>,
): RowWriteCalls {
  return {
    create: async (table, body, params = {}) => {
      const write = createWrite(table, body, params);
      return rowWriteResult(await send(write, params.signal), write);
    },
    update: async (table, sysId, body, method = "PATCH", params = {}) => {
      const write = updateWrite(table, sysId, body, method, params);
      return rowWriteResult(await send(write, params.signal), write);
    },
    delete: async (table, sysId, params = {}) => {
      const write = deleteWrite(table, sysId, params);
      return deleteResult(await send(write, params.signal), write);
    },
  };
}

function createWrite(table: string, body: Record<string, unknown>, params: RowParams = {}): RowWrite {
  return { method: "POST", path: tablePath(table), query: rowQuery(params), json: body };
}

function updateWrite(
  table: string,
  sysId: string,
  body: Record<string, unknown>,
  method: UpdateMethod = "PATCH",
  params: RowParams = {},
): RowWrite {
  const { sys_id: _ignored, ...fields } = body;
  return { method, path: rowPath(table, sysId), query: rowQuery(params), json: fields };
}

function deleteWrite(
  table: string,
  sysId: string,
  params: Pick<RowParams, "queryNoDomain"> = {},
): RowWrite {
  const query = new URLSearchParams();
  if (params.queryNoDomain) query.set("sysparm_query_no_domain", "true");
  return { method: "DELETE", path: rowPath(table, sysId), query };
}

/** The row a create or update answered with, or the error its status means. */
function rowWriteResult(response: InstanceResponse, write: RowWrite): TableRow {
  return expectResult(response, write.method, write.path, "object") as TableRow;
}

/** What a delete's answer means: "deleted", "not_found" (404), or the error its status means. */
function deleteResult(response: InstanceResponse, write: RowWrite): "deleted" | "not_found" {
  if (response.status === 404) return "not_found";
  if (response.status >= 300) throw httpError(response, write.method, write.path);
  refuseHtmlPage(response, write);
  return "deleted";
}

function tablePath(table: string): string {
  if (!TABLE_NAME.test(table)) throw new RangeError(`not a table name: "${table}"`);
  return `/api/now/table/${table}`;
}

function rowPath(table: string, sysId: string): string {
  if (sysId === "") throw new RangeError("empty sys_id");
  return `${tablePath(table)}/${encodeURIComponent(sysId)}`;
}

function rowQuery(params: RowParams): URLSearchParams {
  const query = new URLSearchParams();
  if (params.fields && params.fields.length > 0) query.set("sysparm_fields", params.fields.join(","));
  if (params.displayValue !== undefined) query.set("sysparm_display_value", params.displayValue);
  if (params.excludeReferenceLink !== undefined) {
    query.set("sysparm_exclude_reference_link", String(params.excludeReferenceLink));
  }
  if (params.queryNoDomain) query.set("sysparm_query_no_domain", "true");
  return query;
}
