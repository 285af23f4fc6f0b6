/**
 * Typed settings of the instance client, read from a connector's parsed properties.
 *
 * Defaults live in the property definitions (src/config/defs/connection.ts), never here: by the time
 * `instanceSettingsFromProps` runs, every `svc.*` name is present with its default applied. The figures quoted
 * in the field comments are those defaults, for the reader's convenience.
 */
import { PropReader } from "../common/prop_reader.ts";
import type { TypedProps } from "../common/props.ts";
import type { RetryOptions } from "../common/retry_policy.ts";
import { registerSecret } from "../observability/redact.ts";
import { InstanceConfigError } from "./errors.ts";

/** A Java key or trust store file. */
export interface StoreSettings {
  /** `svc.tls.*.path`. */
  path: string;
  /** `svc.tls.*.password`; for a key store it also unlocks the private key. */
  password: string | null;
  /** `svc.tls.*.type` (default JKS). The file's magic number wins when it disagrees, as Java 9+ does. */
  type: "JKS" | "PKCS12";
}

export interface BasicAuthSettings {
  type: "basic";
  /** `svc.auth.username`. */
  username: string;
  /** `svc.auth.password`. */
  password: string;
}

export interface OAuthSettings {
  type: "oauth2";
  /** `svc.oauth.grant.type` (default client_credentials). */
  grantType: "client_credentials" | "password";
  /** `svc.oauth.token.url`; null means `{origin of svc.url}/oauth_token.do`. */
  tokenUrl: string | null;
  /** `svc.oauth.client.id`. */
  clientId: string;
  /** `svc.oauth.client.secret`. */
  clientSecret: string;
  /** `svc.oauth.scope`; sent only when set. */
  scope: string | null;
  /** `svc.auth.username`, used by the password grant only. */
  username: string | null;
  /** `svc.auth.password`, used by the password grant only. */
  password: string | null;
}

export interface ProxySettings {
  /** `svc.http.proxy.url`: http://host:port (CONNECT is used for https instances). */
  url: string;
  /** `svc.http.proxy.username`, for Basic proxy authentication. */
  username: string | null;
  /** `svc.http.proxy.password`. */
  password: string | null;
}

export interface HttpLimits {
  /** `svc.http.max.concurrent.requests` (default 8): permits per instance host per process. */
  maxConcurrentRequests: number;
  /** `svc.http.connect.timeout.ms` (default 10000). */
  connectTimeoutMs: number;
  /** `svc.http.request.timeout.ms` (default 60000): permit wait plus time to response headers, per attempt. */
  requestTimeoutMs: number;
  /** `svc.http.max.response.bytes` (default 64 MiB), counted after decompression. */
  maxResponseBytes: number;
  /** `svc.http.user.agent` (default `tablesync/<version>`); a literal `<version>` is replaced by the version. */
  userAgent: string;
  /** `svc.http.adaptive.throttling` (default true): Server-Timing semaphore waits steer the limit, 429 halves it. */
  adaptiveThrottling: boolean;
  /** `svc.http.rate.limit.pacing` (default true): spread requests within a rate-limit rule's window (rate_pacer.ts). */
  rateLimitPacing: boolean;
  /** `svc.http.rate.limit.reserve` (default 0.5): the even pace's share a catch-up's burst keeps (burst_allowance.ts). */
  rateLimitReserve: number;
  /** `svc.http.requests.per.hour` (default none): this host's request budget when no rule says it (rate_pacer.ts). */
  requestsPerHour?: number | null;
}

export interface InstanceSettings {
  /** `svc.url` as given; only its scheme, host and port are used (see instance_url.ts). */
  url: string;
  auth: BasicAuthSettings | OAuthSettings;
  tls: { truststore: StoreSettings | null; keystore: StoreSettings | null };
  proxy: ProxySettings | null;
  http: HttpLimits;
  retry: RetryOptions;
}

/**
 * Reads the instance client's settings from parsed connector properties, registering every secret with the
 * redaction layer as soon as it is seen. Throws `InstanceConfigError` naming the property when a value the
 * chosen flow needs is missing or has the wrong type.
 */
export function instanceSettingsFromProps(props: TypedProps): InstanceSettings {
  const read = new InstancePropReader(props);
  for (
    const secret of [
      "svc.auth.password",
      "svc.oauth.client.secret",
      "svc.tls.truststore.password",
      "svc.tls.keystore.password",
      "svc.http.proxy.password",
    ]
  ) registerSecret(read.optionalString(secret));

  const authType = read.requiredString("svc.auth.type");
  let auth: BasicAuthSettings | OAuthSettings;
  if (authType === "basic") {
    auth = {
      type: "basic",
      // (Not "basic authentication": the redaction layer would take that for a credential.)
      username: read.requiredString("svc.auth.username", "svc.auth.type=basic"),
      password: read.requiredString("svc.auth.password", "svc.auth.type=basic"),
    };
  } else if (authType === "oauth2") {
    const grantType = read.requiredString("svc.oauth.grant.type");
    if (grantType !== "client_credentials" && grantType !== "password") {
      throw new InstanceConfigError(
        `svc.oauth.grant.type must be client_credentials or password, got "${grantType}"`,
      );
    }
    const needsUser = grantType === "password" ? "the OAuth password grant" : null;
    auth = {
      type: "oauth2",
      grantType,
      tokenUrl: read.optionalString("svc.oauth.token.url"),
      clientId: read.requiredString("svc.oauth.client.id", "svc.auth.type=oauth2"),
      clientSecret: read.requiredString("svc.oauth.client.secret", "svc.auth.type=oauth2"),
      scope: read.optionalString("svc.oauth.scope"),
      username: needsUser
        ? read.requiredString("svc.auth.username", needsUser)
        : read.optionalString("svc.auth.username"),
      password: needsUser
        ? read.requiredString("svc.auth.password", needsUser)
        : read.optionalString("svc.auth.password"),
    };
  } else {
    throw new InstanceConfigError(`svc.auth.type must be basic or oauth2, got "${authType}"`);
  }

  const proxyUrl = read.optionalString("svc.http.proxy.url");
  return {
    url: read.requiredString("svc.url"),
    auth,
    tls: { truststore: read.store("svc.tls.truststore"), keystore: read.store("svc.tls.keystore") },
    proxy: proxyUrl === null ? null : {
      url: proxyUrl,
      username: read.optionalString("svc.http.proxy.username"),
      password: read.optionalString("svc.http.proxy.password"),
    },
    http: {
      maxConcurrentRequests: read.number("svc.http.max.concurrent.requests", 1),
      connectTimeoutMs: read.number("svc.http.connect.timeout.ms", 1),
      requestTimeoutMs: read.number("svc.http.request.timeout.ms", 1),
      maxResponseBytes: read.number("svc.http.max.response.bytes", 1),
      userAgent: read.requiredString("svc.http.user.agent"),
      adaptiveThrottling: read.boolean("svc.http.adaptive.throttling"),
      rateLimitPacing: read.boolean("svc.http.rate.limit.pacing"),
      rateLimitReserve: read.number("svc.http.rate.limit.reserve", 0),
      // Only when set: without a budget the settings are what they were before it existed.
      ...optionalEntry("requestsPerHour", read.optionalNumber("svc.http.requests.per.hour")),
    },
    retry: {
      maxAttempts: read.number("svc.retry.max.attempts", 1),
      maxElapsedMs: read.number("svc.retry.max.elapsed.ms", 0),
      initialBackoffMs: read.number("svc.retry.initial.backoff.ms", 0),
      maxBackoffMs: read.number("svc.retry.max.backoff.ms", 0),
    },
  };
}

/** Typed access to the instance properties, plus the trust and key store sections. */
class InstancePropReader extends PropReader {
  constructor(props: TypedProps) {
    super(props, (message) => new InstanceConfigError(message));
  }

  store(prefix: "svc.tls.truststore" | "svc.tls.keystore"): StoreSettings | null {
    const path = this.optionalString(`${prefix}.path`);
    if (path === null) return null;
    const type = (this.optionalString(`${prefix}.type`) ?? "").toUpperCase();
    if (type !== "JKS" && type !== "PKCS12") {
      throw new InstanceConfigError(`${prefix}.type must be JKS or PKCS12`);
    }
    return { path, password: this.optionalString(`${prefix}.password`), type };
  }
}

/** `{ [key]: value }`, or nothing when the value is null. */
function optionalEntry<K extends string, V>(key: K, value: V | null): { [P in K]?: V } {
  return (value === null ? {} : { [key]: value }) as { [P in K]?: V };
}
