/**
 * The REST API server: Kafka Connect's paths, status codes and bodies on `listeners`, plus `GET /metrics`.
 * Optional bearer-token authentication (`rest.auth.token`) and TLS for https:// listeners.
 * Every error becomes Connect's `{error_code, message}`; nothing secret leaves through a response.
 */
import type { Herder } from "../runtime/herder.ts";
import { ConnectRestError } from "../runtime/connect_rest_error.ts";
import { logger } from "../observability/log.ts";
import { redact } from "../observability/redact.ts";
import { COMMIT, VERSION } from "../version.ts";
import { Router } from "./router.ts";
import { errorResponse, json } from "./responses.ts";
import { connectorRoutes } from "./connectors.ts";
import { offsetRoutes } from "./offsets.ts";
import { pluginRoutes } from "./plugins.ts";
import { tableRoutes } from "./tables.ts";
import { isPublicPath, uiRoutes } from "./ui.ts";
import type { ThroughputHistory } from "./ui_history.ts";

const log = logger("rest");

export interface RestServerOptions {
  /** One listener URL, e.g. http://127.0.0.1:8083 (port 0 picks a free port). */
  listener: string;
  herder: Herder;
  kafkaClusterId: string;
  /** Prometheus text for GET /metrics. */
  metrics: () => string;
  /** When set, requests must carry `Authorization: Bearer <token>`. */
  authToken?: string | null;
  /** PEM certificate and key for https:// listeners. */
  tls?: { cert: string; key: string };
  /** The status page's throughput samples (ui_history.ts). */
  uiHistory?: ThroughputHistory;
}

export interface RestServer {
  /** The URL the server listens on (with the real port). */
  url: string;
  close(): Promise<void>;
}

function buildRouter(options: RestServerOptions): Router {
  const router = new Router();
  router.add(
    "GET",
    "/",
    () => json({ version: VERSION, commit: COMMIT, kafka_cluster_id: options.kafkaClusterId }),
  );
  router.add(
    "GET",
    "/metrics",
    () =>
      new Response(options.metrics(), {
        headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      }),
  );
  connectorRoutes(router, options.herder);
  offsetRoutes(router, options.herder);
  pluginRoutes(router, options.herder);
  tableRoutes(router, options.herder);
  uiRoutes(router, { ...options, authorized });
  return router;
}

function authorized(request: Request, token: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const expected = `Bearer ${token}`;
  if (header.length !== expected.length) return false;
  // Constant-time comparison: the token must not leak through response timing.
  let diff = 0;
  for (let i = 0; i < header.length; i++) diff |= header.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

export async function startRestServer(options: RestServerOptions): Promise<RestServer> {
  const url = new URL(options.listener);
  const router = buildRouter(options);
  const https = url.protocol === "https:";
  if (https && !options.tls) {
    throw new Error(
      `listener ${options.listener} is https:// but listeners.https.ssl.certificate.location and listeners.https.ssl.key.location are not set`,
    );
  }
  const handler = async (request: Request): Promise<Response> => {
    const reqUrl = new URL(request.url);
    try {
      // The status page itself holds no data; its own requests carry the token (see ui.ts).
      if (
        options.authToken && !isPublicPath(request.method, reqUrl) && !authorized(request, options.authToken)
      ) {
        return errorResponse(401, "Authentication required: send Authorization: Bearer <token>");
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
    close: async () => {
      await server.shutdown();
    },
  };
}
