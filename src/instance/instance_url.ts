/**
 * `svc.url` reduced to what the client uses: scheme, host and port. A path, query, fragment or user info in
 * the configured URL is ignored (users paste `https://x.service-now.com/now/nav/ui/...` all the time).
 */
import { InstanceConfigError } from "./errors.ts";

export interface InstanceAddress {
  /** `https://host[:port]`, lower-cased, no trailing slash: the base of every request URL. */
  origin: string;
  /** Lower-cased `host[:port]` (port only when not the scheme's default): the instance's identity. */
  host: string;
  /** Lower-cased host name without port, for TLS names and source partitions. */
  hostname: string;
  /** The TCP port actually used (443/80 when the URL has none). */
  port: number;
  secure: boolean;
}

export function parseInstanceUrl(url: string): InstanceAddress {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InstanceConfigError(`svc.url is not a valid URL: "${url}"`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new InstanceConfigError(`svc.url must start with https:// or http://, got "${parsed.protocol}"`);
  }
  const secure = parsed.protocol === "https:";
  // WHATWG URL already lower-cases the host and drops a default port.
  return {
    origin: `${parsed.protocol}//${parsed.host}`,
    host: parsed.host,
    hostname: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : secure ? 443 : 80,
    secure,
  };
}
