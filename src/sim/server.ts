/**
 * The listener. Plain HTTP and HTTPS use Deno.serve. Deno.serve cannot ask for client certificates, so
 * mTLS (a CA for client certificates) uses node:https with requestCert, adapting its requests to the same
 * fetch-style handler; a failing body stream destroys the socket there, which the client sees as a reset.
 */
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { SimTlsOptions } from "./options.ts";
import { logger } from "../observability/log.ts";
import { SimulatedResetError } from "./pipeline/to_response.ts";

const log = logger("sim");

export type Handler = (request: Request) => Promise<Response>;

export interface Listener {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function listen(
  host: string,
  port: number,
  tls: SimTlsOptions | undefined,
  handler: Handler,
): Promise<Listener> {
  if (tls?.caForClientCerts) return await listenMutualTls(host, port, tls, handler);
  const ready = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: host,
    port,
    ...(tls ? { cert: tls.cert, key: tls.key } : {}),
    onListen: (addr) => ready.resolve(addr.port),
    onError: (e) => {
      if (e instanceof SimulatedResetError) return new Response(null, { status: 500 });
      log.error({ err: String(e) }, "simulator handler error");
      return new Response(null, { status: 500 });
    },
  }, handler);
  const boundPort = await ready.promise;
  return {
    url: `${tls ? "https" : "http"}://${urlHost(host)}:${boundPort}`,
    port: boundPort,
    close: async () => {
      await server.shutdown();
    },
  };
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

async function listenMutualTls(
  host: string,
  port: number,
  tls: SimTlsOptions,
  handler: Handler,
): Promise<Listener> {
  const sockets = new Set<import("node:net").Socket>();
  const server = https.createServer({
    cert: tls.cert,
    key: tls.key,
    ca: tls.caForClientCerts,
    requestCert: true,
    rejectUnauthorized: tls.requireClientCert ?? false,
  }, (req, res) => void serveNode(req, res, handler, host));
  server.on("secureConnection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("tlsClientError", (e) => log.debug({ err: String(e) }, "TLS handshake refused"));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const boundPort = (server.address() as { port: number }).port;
  return {
    url: `https://${urlHost(host)}:${boundPort}`,
    port: boundPort,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function serveNode(
  req: IncomingMessage,
  res: ServerResponse,
  handler: Handler,
  host: string,
): Promise<void> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const request = new Request(`https://${req.headers.host ?? host}${req.url ?? "/"}`, {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    // @ts-ignore: duplex is required by fetch for streaming request bodies
    duplex: "half",
  });
  const response = await handler(request);
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => (out[k] = v));
  res.writeHead(response.status, out);
  if (!response.body) {
    res.end();
    return;
  }
  try {
    for await (const chunk of response.body) {
      if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
    }
    res.end();
  } catch {
    res.destroy();
  }
}
