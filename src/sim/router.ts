/**
 * The request pipeline: route → journal and in-flight counting → faults → the instance's limits (session,
 * session lock; cluster.ts) → latency → authentication → handler → body stream (with reset, gzip and padding
 * faults) → finish bookkeeping (and the session's release) when the body ends.
 */
import { authenticate } from "./pipeline/authenticate.ts";
import { OAUTH_DENIED } from "./auth/oauth.ts";
import type { ActiveFaults } from "./faults.ts";
import { formatGlideDateTime, httpDate } from "./glide_time.ts";
import { faultResponse, proxyDate } from "./pipeline/fault_response.ts";
import { baseHeaders, errorBody, Errors, JSON_TYPE } from "./http/responses.ts";
import { CANCELLED_BODY, quotaSpent } from "./limits/quota.ts";
import { toResponse } from "./pipeline/to_response.ts";
import { type Refusal, serverTiming, type Ticket } from "./limits/cluster.ts";
import { matchRoute, type RouteMatch } from "./pipeline/match.ts";
import { SIM_STATS_PATH, simStats } from "./routes/sim_stats.ts";
import { SIM_DRIFT_PREFIX, simDrift } from "./routes/drift.ts";
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
  if (!inner && url.pathname === SIM_STATS_PATH) return simStats(state);
  if (!inner && url.pathname.startsWith(SIM_DRIFT_PREFIX)) {
    return await simDrift(state, request, url.pathname);
  }
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
    ...(inner ? { batchItem: true } : {}),
  });
  const leave = state.counters.enter(route.key);
  let ticket: Ticket | undefined;
  const finish = (status: number) => {
    if (entry.endedAt !== undefined) return;
    entry.endedAt = Date.now();
    entry.status = entry.status || status;
    ticket?.release();
    leave();
  };
  try {
    const faults = state.faults.select({ route: route.key, method, table: route.table });
    entry.faults = faults.fired;
    // The instance's own limits (sessions, semaphores) guard API transactions; OAuth and batch items pass.
    const cluster = inner || route.kind === "oauth" ? undefined : state.cluster;
    if (cluster) {
      const admitted = await cluster.admit(request, state.clock.nowMs());
      if (!("release" in admitted)) return refused(state, admitted, entry, finish);
      ticket = admitted;
    }
    // The latency is the transaction's work: it runs once the request holds its session and thread.
    const runningSince = ticket?.startedAt ?? arrivedAt;
    const delay = (inner ? 0 : state.settings.latencyMs) + faults.latencyMs;
    const quotaLeft = ticket?.quota ? ticket.quota.deadline - runningSince : Infinity;
    if (delay > 0) await sleepUntil(runningSince, Math.min(delay, quotaLeft));
    const isList = route.kind === "table" && route.sysId === undefined &&
      (method === "GET" || method === "HEAD");
    const response = quotaSpent(ticket?.quota) && !isList
      ? cancelled(state)
      : await respond(state, request, method, url, route, faults, entry, ticket);
    if (ticket) {
      for (const [name, value] of ticket.headers) response.headers.append(name, value);
      response.headers.set("server-timing", serverTiming(ticket));
      response.headers.set("x-transaction-id", ticket.transactionId);
    }
    if (faults.doubleDate) proxyDate(response.headers, faults.doubleDate, state.clock.nowMs());
    entry.status = response.status;
    state.counters.recordStatus(response.status);
    return toResponse(response, faults, method === "HEAD", finish, (n) => state.counters.bytesReturned += n);
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

/** The answer to a request the instance turned away without running it (no body, no Retry-After). */
function refused(
  state: SimState,
  refusal: Refusal,
  entry: JournalEntry,
  finish: (status: number) => void,
): Response {
  entry.status = refusal.status;
  state.counters.recordStatus(refusal.status);
  finish(refusal.status);
  const headers = new Headers({ date: httpDate(state.clock.nowMs()), server: "ServiceNow" });
  for (const [name, value] of refusal.headers) headers.append(name, value);
  if (refusal.body !== undefined) headers.set("content-type", JSON_TYPE);
  return new Response(refusal.body ?? null, { status: refusal.status, headers });
}

/** A transaction the quota cancelled before it wrote anything: 200 and the error object only, nothing done. */
function cancelled(state: SimState): ApiResponse {
  state.counters.quotaCancelled++;
  return { status: 200, headers: baseHeaders(state.clock.nowMs(), true), body: bodyOf(CANCELLED_BODY) };
}

async function respond(
  state: SimState,
  request: Request,
  method: string,
  url: URL,
  route: RouteMatch,
  faults: ActiveFaults,
  entry: JournalEntry,
  ticket: Ticket | undefined,
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
  const verdict = state.rateLimit?.admit(principal.userName, nowMs, ticket?.node);
  for (const [name, value] of verdict?.headers ?? []) headers.set(name, value);
  if (verdict?.denied) {
    headers.set("retry-after", String(verdict.denied.retryAfterSeconds));
    return { status: 429, headers, body: bodyOf(errorBody("Rate limit exceeded", verdict.denied.detail)) };
  }
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
    quota: ticket?.quota,
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
