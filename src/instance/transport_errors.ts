/**
 * Sorting a failed attempt that produced no HTTP status. What matters to the caller is whether the request
 * may have reached the instance (a POST then has an unknown outcome) and whether retrying can help at all
 * (a certificate the trust store does not cover will fail the same way every time).
 *
 * Deno's fetch reports transport failures as `TypeError: fetch failed` whose cause reads like
 * "error sending request for url (…): client error (Connect): tcp connect error: Connection refused" — the
 * "(Connect)" stage means nothing was sent; "(SendRequest)" and body errors mean the request may have been.
 */
import { BodyStalledError } from "./capped_body.ts";
import { PermitWaitTimeout } from "./permit_pool.ts";
import { ConnectFailedError, ConnectTimeoutError } from "./transport.ts";

export type TransportFailure =
  /** Nothing reached the instance: any method may be retried. */
  | { kind: "not_sent"; reason: string }
  /** The request may have reached the instance: retry only when the method is safe to repeat. */
  | { kind: "maybe_sent"; reason: string }
  /** TLS trust or client-certificate problem: a configuration error, never retried. */
  | { kind: "tls"; reason: string };

/** Raised by the client's own timer when response headers did not arrive within the request timeout. */
export class HeadersTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no response headers within svc.http.request.timeout.ms (${timeoutMs} ms)`);
    this.name = "HeadersTimeoutError";
  }
}

const TLS_PATTERNS = [
  /invalid peer certificate: ?([A-Za-z]+)?/i,
  /received fatal alert: ?([A-Za-z]+)?/i,
  /certificate (?:verify|unknown|required|expired|revoked)/i,
];

export function classifyTransportFailure(error: unknown): TransportFailure {
  if (
    error instanceof PermitWaitTimeout || error instanceof ConnectTimeoutError ||
    error instanceof ConnectFailedError
  ) {
    return { kind: "not_sent", reason: error.message };
  }
  if (error instanceof HeadersTimeoutError || error instanceof BodyStalledError) {
    return { kind: "maybe_sent", reason: error.message };
  }
  const detail = describe(error);
  for (const pattern of TLS_PATTERNS) {
    const match = detail.match(pattern);
    if (match) return { kind: "tls", reason: tlsAdvice(match[0], match[1]) };
  }
  if (/client error \(Connect\)/i.test(detail)) return { kind: "not_sent", reason: shorten(detail) };
  return { kind: "maybe_sent", reason: shorten(detail) };
}

/** The error's message with its cause chain, where Deno puts the useful part. */
function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ");
}

/** Drops the "error sending request for url (…)" prefix, which repeats the URL with its query string. */
function shorten(detail: string): string {
  return detail.replace(/error sending request (?:from \S+ )?for url \([^)]*\)(?: \([^)]*\))?: ?/g, "").slice(
    0,
    300,
  );
}

function tlsAdvice(text: string, code: string | undefined): string {
  switch (code) {
    case "UnknownIssuer":
      return `TLS handshake failed: the server certificate is not signed by a trusted CA (${text}); ` +
        `add its CA to svc.tls.truststore.path`;
    case "NotValidForName":
      return `TLS handshake failed: the server certificate does not name the host of svc.url (${text})`;
    case "Expired":
      return `TLS handshake failed: the server certificate has expired (${text})`;
    case "CertificateRequired":
    case "BadCertificate":
    case "UnknownCA":
    case "HandshakeFailure":
      return `TLS handshake failed: the server refused the client certificate (${text}); ` +
        `check svc.tls.keystore.path (mutual TLS)`;
    default:
      return `TLS handshake failed (${text}); check svc.tls.truststore.* and svc.tls.keystore.*`;
  }
}
