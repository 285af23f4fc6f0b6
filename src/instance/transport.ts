/**
 * The socket side of the client: one Deno.HttpClient carrying TLS trust, the client certificate and the proxy,
 * plus the connect timeout, which Deno's fetch does not offer.
 *
 * Trust: with no `svc.tls.truststore.*`, the system trust store (the bundle named by SSL_CERT_FILE or the
 * usual distribution paths) is trusted in addition to Deno's built-in roots. With a trust store, its
 * certificates are trusted in addition to Deno's built-in roots (Deno cannot drop those), which is why a
 * public CA would still be accepted; a private CA is trusted only when listed.
 *
 * Connect timeout: fetch cannot time the TCP connect separately from the wait for response headers. When no
 * pooled connection is likely to be alive (nothing answered within POOL_IDLE_MS), a TCP connect to the
 * instance (or the proxy) is made first and bounded by `svc.http.connect.timeout.ms`, so an unreachable host
 * fails after the connect timeout and the request is known not to have been sent.
 */
import { logger } from "../observability/log.ts";
import { registerSecret } from "../observability/redact.ts";
import { InstanceConfigError } from "./errors.ts";
import type { InstanceAddress } from "./instance_url.ts";
import type { InstanceSettings } from "./settings.ts";
import { instanceStoreNaming } from "./tls/keystore.ts";
import { addStores, createTlsHttpClient, type TlsClientOptions } from "../common/keystore.ts";

const log = logger("instance");

/** Idle pooled connections are closed after this; past it the next request opens a new connection. */
export const POOL_IDLE_MS = 30_000;

const SYSTEM_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

/** The TCP connect to `host:port` did not complete in time (nothing was sent). */
export class ConnectTimeoutError extends Error {
  constructor(readonly target: string, readonly timeoutMs: number) {
    super(`TCP connect to ${target} did not complete within ${timeoutMs} ms`);
    this.name = "ConnectTimeoutError";
  }
}

/** The TCP connect check failed (refused, unreachable, DNS): nothing was sent. */
export class ConnectFailedError extends Error {
  constructor(readonly target: string, cause: unknown) {
    super(`TCP connect to ${target} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = "ConnectFailedError";
  }
}

/** Opens and closes one TCP connection; injectable for tests. */
export type TcpConnector = (hostname: string, port: number, signal: AbortSignal) => Promise<void>;

const tcpConnect: TcpConnector = async (hostname, port, signal) => {
  const conn = await Deno.connect({ hostname, port, signal });
  conn.close();
};

export class InstanceTransport {
  private lastAnswerAt = -Infinity;

  private constructor(
    readonly client: Deno.HttpClient,
    private readonly connectTarget: { hostname: string; port: number },
    private readonly connectTimeoutMs: number,
    private readonly connector: TcpConnector,
  ) {}

  static async create(
    address: InstanceAddress,
    settings: InstanceSettings,
    connector: TcpConnector = tcpConnect,
  ): Promise<InstanceTransport> {
    const clientOptions: TlsClientOptions = { poolIdleTimeout: POOL_IDLE_MS };
    if (address.secure) {
      // A trust store is added to the runtime's public roots, never instead of them (Deno cannot drop its
      // roots): validation refuses a trust store unless svc.tls.truststore.public.roots=true accepts that.
      await addStores(clientOptions, settings.tls, instanceStoreNaming);
      if (settings.tls.truststore === null) {
        const system = await systemTrustStore();
        if (system) clientOptions.caCerts = [system];
      }
    }
    let connectTarget = { hostname: address.hostname, port: address.port };
    if (settings.proxy) {
      const { url, username, password } = settings.proxy;
      registerSecret(password);
      let proxyUrl: URL;
      try {
        proxyUrl = new URL(url);
      } catch {
        throw new InstanceConfigError(`svc.http.proxy.url is not a valid URL`);
      }
      if (proxyUrl.protocol !== "http:" && proxyUrl.protocol !== "https:") {
        throw new InstanceConfigError(`svc.http.proxy.url must start with http:// or https://`);
      }
      registerSecret(decodeURIComponent(proxyUrl.password));
      clientOptions.proxy = {
        url,
        ...(username !== null ? { basicAuth: { username, password: password ?? "" } } : {}),
      };
      connectTarget = {
        hostname: proxyUrl.hostname.replace(/^\[|\]$/g, ""),
        port: proxyUrl.port ? Number(proxyUrl.port) : proxyUrl.protocol === "https:" ? 443 : 80,
      };
    }
    // Deno rejects a malformed certificate or key here.
    const client = createTlsHttpClient(clientOptions, (message) => new InstanceConfigError(message));
    return new InstanceTransport(client, connectTarget, settings.http.connectTimeoutMs, connector);
  }

  /** Records that the instance answered, so pooled connections are presumed alive. */
  answered(): void {
    this.lastAnswerAt = Date.now();
  }

  /** Checks that a new connection can be opened within the connect timeout, when one will likely be needed. */
  async ensureConnectable(signal?: AbortSignal): Promise<void> {
    if (Date.now() - this.lastAnswerAt < POOL_IDLE_MS) return;
    const { hostname, port } = this.connectTarget;
    const timeout = AbortSignal.timeout(this.connectTimeoutMs);
    try {
      await this.connector(hostname, port, signal ? AbortSignal.any([signal, timeout]) : timeout);
    } catch (error) {
      signal?.throwIfAborted();
      if (timeout.aborted) throw new ConnectTimeoutError(`${hostname}:${port}`, this.connectTimeoutMs);
      throw new ConnectFailedError(`${hostname}:${port}`, error);
    }
  }

  close(): void {
    this.client.close();
  }
}

let systemBundle: Promise<string | null> | null = null;

/** The system CA bundle as one PEM string, read once per process realm. */
function systemTrustStore(): Promise<string | null> {
  systemBundle ??= (async () => {
    const candidates = [envOrNull("SSL_CERT_FILE"), ...SYSTEM_BUNDLES].filter((p): p is string => !!p);
    for (const path of candidates) {
      try {
        const pem = await Deno.readTextFile(path);
        if (pem.includes("BEGIN CERTIFICATE")) return pem;
      } catch {
        // try the next one
      }
    }
    log.debug("no system CA bundle found; using Deno's built-in roots only");
    return null;
  })();
  return systemBundle;
}

/** An environment variable, or null when unset or when env access is not permitted in this thread. */
function envOrNull(name: string): string | null {
  try {
    return Deno.env.get(name) ?? null;
  } catch {
    return null;
  }
}
