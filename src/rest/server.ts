/**
 * The REST API server: Kafka Connect's paths, status codes and bodies on `listeners`, plus `GET /metrics`.
 * Optional bearer-token authentication (`rest.auth.token`) and TLS for https:// listeners. It opens before the
 * worker has started, answering the probes (probes.ts) and /admin/loggers; the rest answers 503 until `serve`.
 * Request bodies are bounded by `rest.request.max.bytes` and must be JSON (request_body.ts).
 * Every error becomes Connect's `{error_code, message}`; nothing secret leaves through a response.
 */
import type { Herder } from "../runtime/herder.ts";
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";
import { logger } from "../observability/log.ts";
import { redact } from "../observability/redact.ts";
import { COMMIT, VERSION } from "../version.ts";
import { Router } from "./router.ts";
import { errorResponse, json } from "./responses.ts";
import { connectorRoutes } from "./connectors.ts";
import { offsetRoutes } from "./offsets.ts";
import { pluginRoutes } from "./plugins.ts";
import { tableRoutes } from "./tables.ts";
import { tableReconcileRoutes } from "./table_reconcile.ts";
import { tableSnapshotRoutes } from "./table_snapshot.ts";
import { SnapshotLedger } from "./snapshot_ledger.ts";
import { isPublicPath, startingUiPage, uiRoutes } from "./ui.ts";
import type { ThroughputHistory } from "./ui_history.ts";
import { topicRoutes, type TopicTracking } from "./topics.ts";
import { type ClusterLoggerLevel, loggerRoutes } from "./loggers.ts";
import { PROBE_PATHS, probeRoutes, type WorkerProbes } from "./probes.ts";
import { checkDeclaredLength, DEFAULT_MAX_BODY_BYTES, limitBody } from "./request_body.ts";

const log = logger("rest");

export interface RestServerOptions {
  /** One listener URL, e.g. http://127.0.0.1:8083 (port 0 picks a free port). */
  listener: string;
  /** When set, requests must carry `Authorization: Bearer <token>` (the probes and the /ui page excepted). */
  authToken?: string | null;
  /** PEM certificate and key for https:// listeners. */
  tls?: { cert: string; key: string };
  /** `rest.request.max.bytes`. */
  maxBodyBytes?: number;
  /** `/health` and `/ready`, answered from the moment the listener opens. */
  probes: WorkerProbes;
  /** `topic.tracking.enable` and `topic.tracking.allow.reset` (both on by default). */
  topicTracking?: TopicTracking;
}

/** What the rest of the API answers from, once the worker has it (`RestServer.serve`). */
export interface RestApi {
  herder: Herder;
  kafkaClusterId: string;
  /** Prometheus text for GET /metrics. */
  metrics: () => string;
  /** Group mode: how `PUT /admin/loggers/<name>?scope=cluster` reaches every member. */
  clusterLoggerLevel?: ClusterLoggerLevel;
  /** The status page's throughput samples (ui_history.ts). */
  uiHistory?: ThroughputHistory;
}

export interface RestServer {
  /** The URL the server listens on (with the real port). */
  url: string;
  /** Serves the whole API; until then every path but the probes and /admin/loggers answers 503. */
  serve(api: RestApi): void;
  close(): Promise<void>;
}

/** The routes that answer while the worker starts: the probes and the loggers. */
function startingRouter(options: RestServerOptions, api: () => RestApi | null): Router {
  const router = new Router();
  probeRoutes(router, options.probes);
  loggerRoutes(
    router,
    () => api()?.herder.allTasks().map((t) => t.task) ?? [],
    () => api()?.clusterLoggerLevel ?? null,
  );
  return router;
}

function buildRouter(options: RestServerOptions, api: RestApi): Router {
  const router = startingRouter(options, () => api);
  router.add(
    "GET",
    "/",
    () => json({ version: VERSION, commit: COMMIT, kafka_cluster_id: api.kafkaClusterId }),
  );
  router.add(
    "GET",
    "/metrics",
    () =>
      new Response(api.metrics(), {
        headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      }),
  );
  connectorRoutes(router, api.herder);
  offsetRoutes(router, api.herder);
  pluginRoutes(router, api.herder);
  const snapshots = new SnapshotLedger();
  tableRoutes(router, api.herder, snapshots);
  tableReconcileRoutes(router, api.herder);
  tableSnapshotRoutes(router, api.herder, snapshots);
  topicRoutes(router, api.herder, options.topicTracking);
  uiRoutes(router, {
    herder: api.herder,
    authToken: options.authToken,
    uiHistory: api.uiHistory,
    authorized,
  });
  return router;
}

/** The token a request carries as `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110). */
function bearerTokenOf(request: Request): string | null {
  const match = /^bearer +(.*)$/i.exec(request.headers.get("authorization") ?? "");
  return match ? match[1].trim() : null;
}

function authorized(request: Request, token: string): boolean {
  const given = bearerTokenOf(request) ?? "";
  if (given.length !== token.length) return false;
  // Constant-time comparison: the token must not leak through response timing.
  let diff = 0;
  for (let i = 0; i < given.length; i++) diff |= given.charCodeAt(i) ^ token.charCodeAt(i);
  return diff === 0;
}

/** Says whether a token was sent at all: a wrong one read as if none had been. */
function unauthorizedMessage(request: Request): string {
  return bearerTokenOf(request) === null
    ? "Authentication required: send Authorization: Bearer <token>"
    : "The bearer token does not match the worker's rest.auth.token";
}

export async function startRestServer(options: RestServerOptions): Promise<RestServer> {
  const url = new URL(options.listener);
  let api: RestApi | null = null;
  const starting = startingRouter(options, () => api);
  let router = starting;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const https = url.protocol === "https:";
  if (https && !options.tls) {
    throw new Error(
      `listener ${options.listener} is https:// but listeners.https.ssl.certificate.location and listeners.https.ssl.key.location are not set`,
    );
  }
  const handler = async (request: Request): Promise<Response> => {
    const reqUrl = new URL(request.url);
    try {
      // The probes and the status page hold no data; the page's own requests carry the token (see ui.ts).
      const open = isPublicPath(request.method, reqUrl) || PROBE_PATHS.includes(reqUrl.pathname);
      if (options.authToken && !open && !authorized(request, options.authToken)) {
        return errorResponse(401, unauthorizedMessage(request));
      }
      checkDeclaredLength(request, maxBodyBytes);
      limitBody(request, maxBodyBytes);
      if (router === starting && !starting.knows(reqUrl)) {
        // The health message already reads "Worker is still starting up: <stage>."
        const message = options.probes.health().message;
        if (request.method === "GET" && reqUrl.pathname === "/ui") return await startingUiPage(message);
        return errorResponse(503, message);
      }
      const { handler, params } = router.match(request.method, reqUrl);
      return await handler(request, params, reqUrl);
    } catch (e) {
      if (e instanceof ConnectRestError) return errorResponse(e.status, e.message);
      log.error({ err: e, method: request.method, path: reqUrl.pathname }, "REST request failed");
      return errorResponse(500, redact((e as Error).message ?? String(e)));
    }
  };
  const ready = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
    ...(https ? { cert: options.tls!.cert, key: options.tls!.key } : {}),
    onListen: (addr) => ready.resolve(addr as Deno.NetAddr),
    onError: (e) => {
      log.error({ err: e }, "REST server error");
      return errorResponse(500, "internal error");
    },
  }, handler);
  const addr = await ready.promise;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const actual = `${url.protocol}//${host}:${addr.port}`;
  log.info({ url: actual }, `REST API listening on ${actual}`);
  return {
    url: actual,
    serve: (served) => {
      api = served;
      router = buildRouter(options, served);
    },
    close: async () => {
      await server.shutdown();
    },
  };
}
