/**
 * The request pipeline: route → journal and in-flight counting → latency → authentication → faults →
 * handler → body stream (with reset, gzip and padding faults) → finish bookkeeping when the body ends.
 */
import { type Principal } from "./auth/users.ts";
import { OAUTH_DENIED } from "./auth/oauth.ts";
import type { ActiveFaults, Fault } from "./faults.ts";
import { formatGlideDateTime, httpDate } from "./glide_time.ts";
import { baseHeaders, errorBody, Errors, JSON_TYPE } from "./http/responses.ts";
import type { JournalEntry } from "./journal.ts";
import { type ApiRequest, type ApiResponse, bodyOf } from "./routes/request.ts";
import { serveBatch } from "./routes/batch.ts";
import { countRows } from "./routes/stats.ts";
import { listRows } from "./routes/table_list.ts";
import { deleteRecord, getRecord, insertRecord, updateRecord } from "./routes/table_record.ts";
import type { SimState } from "./state.ts";
import { logger } from "../observability/log.ts";
import { readRefused } from "./auth/table_acl.ts";

const log = logger("sim");

const BATCH_PATH = /^\/api\/now\/v1\/batch\/?$/;
const TABLE_PATH = /^\/api\/now\/(?:(v1|v2)\/)?table\/([^/]+)(?:\/([^/]+))?\/?$/;
const STATS_PATH = /^\/api\/now\/(?:(v1)\/)?stats\/([^/]+)\/?$/;

interface RouteMatch {
  key: string;
  kind: "table" | "stats" | "oauth" | "batch" | "unknown";
  version?: string;
  table?: string;
  sysId?: string;
}

export function matchRoute(method: string, path: string): RouteMatch {
  if (path === "/oauth_token.do") return { key: `${method} /oauth_token.do`, kind: "oauth" };
  if (BATCH_PATH.test(path)) return { key: `${method} /api/now/batch`, kind: "batch" };
  const stats = STATS_PATH.exec(path);
  if (stats) {
    const table = decodeURIComponent(stats[2]);
    return { key: `${method} /api/now/stats/${table}`, kind: "stats", version: stats[1], table };
  }
  const m = TABLE_PATH.exec(path);
  if (!m) return { key: `${method} (unknown)`, kind: "unknown" };
  const table = decodeURIComponent(m[2]);
  const sysId = m[3] === undefined ? undefined : decodeURIComponent(m[3]);
  return {
    key: `${method} /api/now/table/${table}${sysId === undefined ? "" : "/{sys_id}"}`,
    kind: "table",
    version: m[1],
    table,
    sysId,
  };
}

/** The error that makes the server drop a connection mid-body (a deliberate fault, not a failure). */
export class SimulatedResetError extends Error {
  constructor() {
    super("simulated connection reset");
  }
}

/**
 * Waits until `ms` after `arrivedAt` (a `performance.now()` instant): the latency counts from the request's
 * arrival, so the simulator's own work on a request is part of it, not added to it. The timer is asked for the
 * whole milliseconds left and Deno's timers fire 0.4–2 ms late, so an answer comes at the configured latency or
 * a little after it, never before: a benchmark's ceiling (permits / latency) is never flattered. Always a timer
 * turn, even when nothing is left to wait.
 */
function sleepUntil(arrivedAt: number, ms: number): Promise<void> {
  const left = Math.ceil(arrivedAt + ms - performance.now());
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, left)));
}

/**
 * Serves one request. `inner` marks an item of a Batch API request: the batch's own round trip already paid the
 * configured latency, so an item pays only the latency faults aimed at it.
 */
export async function handleRequest(
  state: SimState,
  request: Request,
  { inner = false }: { inner?: boolean } = {},
): Promise<Response> {
  // Both clocks read together: the latency counts from the arrival the journal records (work before the
  // journal entry, or a pause of the process there, must not shorten the span it shows).
  const startedAt = Date.now();
  const arrivedAt = performance.now();
  const url = new URL(request.url);
  const override = request.headers.get("x-http-method-override");
  const method = (override ?? request.method).toUpperCase();
  const route = matchRoute(method === "HEAD" ? "GET" : method, url.pathname);
  const entry = state.journal.open({
    method,
    path: url.pathname,
    route: route.key,
    table: route.table,
    queryString: url.search.replace(/^\?/, ""),
    params: Object.fromEntries(url.searchParams),
    authKind: "none",
    startedAt,
    instanceTime: formatGlideDateTime(state.clock.nowSeconds()),
  });
  const leave = state.counters.enter(route.key);
  const finish = (status: number) => {
    if (entry.endedAt !== undefined) return;
    entry.endedAt = Date.now();
    entry.status = entry.status || status;
    leave();
  };
  try {
    const faults = state.faults.select({ route: route.key, method, table: route.table });
    entry.faults = faults.fired;
    const delay = (inner ? 0 : state.settings.latencyMs) + faults.latencyMs;
    if (delay > 0) await sleepUntil(arrivedAt, delay);
    const response = await respond(state, request, method, url, route, faults, entry);
    if (faults.doubleDate) proxyDate(response.headers, faults.doubleDate, state.clock.nowMs());
    entry.status = response.status;
    state.counters.recordStatus(response.status);
    return toResponse(response, faults, method === "HEAD", finish);
  } catch (e) {
    log.error({ err: String(e), route: route.key }, "simulator request failed");
    entry.status = 500;
    state.counters.recordStatus(500);
    finish(500);
    return new Response(errorBody("Internal Server Error", String((e as Error)?.message ?? e)), {
      status: 500,
      headers: baseHeaders(state.clock.nowMs(), false),
    });
  }
}

/** What a proxy that adds its own Date does to the header: several comma-joined values. */
function proxyDate(headers: Headers, fault: NonNullable<ActiveFaults["doubleDate"]>, nowMs: number): void {
  const values = fault.garbled === "only"
    ? ["not a date", "Someday, 99 Foo 20xx 25:61:61 GMT"]
    : [headers.get("date"), httpDate(nowMs + fault.proxySkewSeconds * 1000)];
  if (fault.garbled === "first") values.unshift("not a date");
  headers.set("date", values.filter((v) => v !== null).join(", "));
}

function authenticate(state: SimState, request: Request, entry: JournalEntry): Principal | undefined {
  const header = request.headers.get("authorization") ?? "";
  const space = header.indexOf(" ");
  const scheme = header.slice(0, space).toLowerCase();
  const credential = header.slice(space + 1).trim();
  if (scheme === "basic") {
    entry.authKind = "basic";
    let decoded = "";
    try {
      decoded = atob(credential);
    } catch {
      return undefined;
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) return undefined;
    const principal = state.users.verify(decoded.slice(0, colon), decoded.slice(colon + 1));
    entry.principal = principal?.userName;
    return principal;
  }
  if (scheme === "bearer") {
    entry.authKind = "bearer";
    const principal = state.oauth.verifyBearer(credential);
    entry.principal = principal?.userName;
    entry.clientId = principal?.clientId;
    return principal;
  }
  return undefined;
}

function faultResponse(fault: Fault, headers: Headers, nowMs: number): ApiResponse | undefined {
  switch (fault.kind) {
    case "rate_limit": {
      const retryAfter = fault.retryAfterSeconds ?? 10;
      headers.set("retry-after", String(retryAfter));
      headers.set("x-ratelimit-limit", String(fault.limitPerHour ?? 100));
      headers.set("x-ratelimit-reset", String(Math.floor(nowMs / 1000) + retryAfter));
      headers.set("x-ratelimit-rule", fault.ruleSysId ?? "0b6c2f1e1b2330103a5b7c1bdc4bcb51");
      return { status: 429, headers, body: bodyOf(errorBody(...Errors.rateLimited)) };
    }
    case "busy":
      return { status: 429, headers, body: bodyOf(errorBody("Too Many Requests", null)) };
    case "status":
      return {
        status: fault.status,
        headers,
        body: bodyOf(errorBody(fault.message ?? statusMessage(fault.status), fault.detail ?? null)),
      };
    case "accepted":
      headers.delete("content-type");
      return { status: 202, headers };
    case "unauthorized":
      return { status: 401, headers, body: bodyOf(errorBody(...Errors.notAuthenticated)) };
    default:
      return undefined;
  }
}

function statusMessage(status: number): string {
  return {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
  }[
    status
  ] ?? `HTTP ${status}`;
}

async function respond(
  state: SimState,
  request: Request,
  method: string,
  url: URL,
  route: RouteMatch,
  faults: ActiveFaults,
  entry: JournalEntry,
): Promise<ApiResponse> {
  const nowMs = state.clock.nowMs();
  if (route.kind === "oauth") {
    const headers = baseHeaders(nowMs, false);
    if (faults.replace) return faultResponse(faults.replace, headers, nowMs)!;
    if (method !== "POST") return { status: 405, headers, body: bodyOf(JSON.stringify(OAUTH_DENIED)) };
    const type = (request.headers.get("content-type") ?? "").toLowerCase();
    const form = type.startsWith("application/x-www-form-urlencoded")
      ? new URLSearchParams(await request.text())
      : undefined;
    const result = state.oauth.handle(form);
    entry.authKind = "none";
    entry.principal = result.userName;
    entry.clientId = result.clientId;
    headers.set("content-type", "application/json;charset=UTF-8");
    return { status: result.status, headers, body: bodyOf(JSON.stringify(result.body)) };
  }
  const principal = authenticate(state, request, entry);
  const headers = baseHeaders(nowMs, principal !== undefined);
  if (!principal) return { status: 401, headers, body: bodyOf(errorBody(...Errors.notAuthenticated)) };
  const denied = state.rateLimit?.admit(principal.userName, nowMs, headers);
  if (denied) return denied;
  if (faults.replace) return faultResponse(faults.replace, headers, nowMs)!;
  if (route.kind === "unknown") {
    return { status: 400, headers, body: bodyOf(errorBody(...Errors.noResource)) };
  }
  if (route.kind === "batch") {
    if (method !== "POST") {
      return {
        status: 405,
        headers,
        body: bodyOf(errorBody("Method not Supported", `${method} is not supported here`)),
      };
    }
    return await serveBatch(state, request, headers, (item) => handleRequest(state, item, { inner: true }));
  }

  const accept = request.headers.get("accept");
  if (accept && !/json|\*\/\*/i.test(accept)) {
    return {
      status: 406,
      headers,
      body: bodyOf(errorBody("Requested response format is not supported", accept)),
    };
  }
  const source = state.db.source(route.table!);
  if (!source) return { status: 400, headers, body: bodyOf(errorBody(...Errors.invalidTable(route.table!))) };
  const store = state.db.store(route.table!);
  const refused = readRefused(store?.schema, principal, headers);
  if (refused) return refused;
  const origin = state.settings.publicOrigin ?? url.origin;
  const req: ApiRequest = {
    state,
    request,
    method,
    url,
    params: url.searchParams,
    version: route.version,
    table: route.table!,
    sysId: route.sysId,
    principal,
    viewer: state.users.viewer(principal),
    faults,
    entry,
    origin,
    headers,
  };
  if (route.kind === "stats") {
    if (method === "GET" || method === "HEAD") return countRows(req, source);
  } else if (route.sysId === undefined) {
    if (method === "GET" || method === "HEAD") return listRows(req, source);
    if (method === "POST") return await insertRecord(req, source, store);
  } else {
    if (method === "GET" || method === "HEAD") return getRecord(req, source);
    if (method === "PATCH" || method === "PUT") return await updateRecord(req, source, store);
    if (method === "DELETE") return deleteRecord(req, source, store);
  }
  return {
    status: 405,
    headers,
    body: bodyOf(errorBody("Method not Supported", `${method} is not supported here`)),
  };
}

const encoder = new TextEncoder();

/** Builds the HTTP response; the finish callback runs when the body is done, failed or cancelled. */
function toResponse(
  res: ApiResponse,
  faults: ActiveFaults,
  head: boolean,
  finish: (status: number) => void,
): Response {
  if (!res.body || head || res.status === 204 || res.status === 202) {
    finish(res.status);
    return new Response(null, { status: res.status, headers: res.headers });
  }
  const source = res.body;
  const iterator = Symbol.asyncIterator in source
    ? (source as AsyncIterable<string>)[Symbol.asyncIterator]()
    : (source as Iterable<string>)[Symbol.iterator]();
  let sent = 0;
  let padded = false;
  const resetAt = faults.resetAfterBytes;
  let stream: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          if (faults.oversizedBytes && !padded && sent < faults.oversizedBytes) {
            // Trailing whitespace keeps the JSON valid while making the body as large as asked.
            padded = true;
            controller.enqueue(encoder.encode(" ".repeat(faults.oversizedBytes - sent)));
            return;
          }
          controller.close();
          finish(res.status);
          return;
        }
        let bytes = encoder.encode(next.value);
        if (resetAt !== undefined && sent + bytes.length >= resetAt) {
          bytes = bytes.subarray(0, Math.max(0, resetAt - sent));
          if (bytes.length) controller.enqueue(bytes);
          finish(res.status);
          // Erroring the stream makes the server drop the connection mid-body: the client sees a reset.
          controller.error(new SimulatedResetError());
          return;
        }
        sent += bytes.length;
        controller.enqueue(bytes);
      } catch (e) {
        finish(res.status);
        controller.error(e);
      }
    },
    cancel() {
      finish(res.status);
    },
  });
  if (faults.gzip) {
    stream = stream.pipeThrough(
      new CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
    );
    res.headers.set("content-encoding", "gzip");
  }
  if (!res.headers.has("content-type")) res.headers.set("content-type", JSON_TYPE);
  return new Response(stream, { status: res.status, headers: res.headers });
}
