/** Properties shared by the source and the sink: the instance, authentication, TLS, proxy, HTTP limits and retries. */
import { group, type PropertyDef } from "../def.ts";
import { httpUrl, nonEmpty, range } from "../validators.ts";
import { VERSION } from "../../version.ts";

const connection = group("Connection");
const auth = group("Authentication");
const tls = group("TLS");
const proxy = group("Proxy");
const http = group("HTTP");
const retry = group("Retry");

const STORE_TYPES = ["JKS", "PKCS12"] as const;

export const CONNECTION_DEFS: readonly PropertyDef[] = [
  connection(
    "svc.url",
    "STRING",
    "Instance URL. Only scheme, host and port are used; the lower-cased host identifies the instance in source partitions. TLS is used whenever it starts with https://.",
    { importance: "HIGH", validator: httpUrl, width: "LONG" },
  ),

  auth(
    "svc.auth.type",
    "STRING",
    "Authentication flow: basic (username and password on every request) or oauth2 (bearer tokens from the instance token endpoint).",
    {
      default: "basic",
      validValues: ["basic", "oauth2"],
      importance: "HIGH",
    },
  ),
  auth(
    "svc.auth.username",
    "STRING",
    "Integration user. Required for basic authentication and the OAuth password grant. Its time zone must be UTC.",
    {
      default: null,
      importance: "HIGH",
    },
  ),
  auth(
    "svc.auth.password",
    "PASSWORD",
    "Password of the integration user. Required for basic authentication and the OAuth password grant.",
    {
      default: null,
      importance: "HIGH",
    },
  ),
  auth("svc.oauth.token.url", "STRING", "Token endpoint. Defaults to {svc.url}/oauth_token.do.", {
    default: null,
    validator: httpUrl,
  }),
  auth(
    "svc.oauth.grant.type",
    "STRING",
    "OAuth grant: client_credentials (needs the instance's inbound client-credentials grant and an application user) or password (reuses svc.auth.username and svc.auth.password).",
    {
      default: "client_credentials",
      validValues: ["client_credentials", "password"],
    },
  ),
  auth("svc.oauth.client.id", "STRING", "OAuth client id. Required when svc.auth.type is oauth2.", {
    default: null,
  }),
  auth("svc.oauth.client.secret", "PASSWORD", "OAuth client secret. Required when svc.auth.type is oauth2.", {
    default: null,
  }),
  auth("svc.oauth.scope", "STRING", "OAuth scope. Sent only when set.", { default: null, importance: "LOW" }),

  tls(
    "svc.tls.truststore.path",
    "STRING",
    "Trust store with the CA certificates to trust. The runtime cannot drop its public root certificates, so a " +
      "trust store is refused unless svc.tls.truststore.public.roots=true accepts that they stay trusted too.",
    {
      default: null,
    },
  ),
  tls(
    "svc.tls.truststore.public.roots",
    "BOOLEAN",
    "Accept that, with a trust store, the public root certificates stay trusted next to its CAs (Java/Kafka " +
      "Connect would trust only the trust store's; the Deno runtime can only add to its roots). false refuses a " +
      "configured trust store at validation rather than trusting more than configured.",
    {
      default: "false",
    },
  ),
  tls("svc.tls.truststore.password", "PASSWORD", "Password of the trust store.", { default: null }),
  tls("svc.tls.truststore.type", "STRING", "Trust store format.", {
    default: "JKS",
    validValues: STORE_TYPES,
  }),
  tls(
    "svc.tls.keystore.path",
    "STRING",
    "Key store with the client certificate and private key for mutual TLS.",
    {
      default: null,
    },
  ),
  tls(
    "svc.tls.keystore.password",
    "PASSWORD",
    "Password of the key store; it also unlocks the private key.",
    {
      default: null,
    },
  ),
  tls("svc.tls.keystore.type", "STRING", "Key store format.", { default: "JKS", validValues: STORE_TYPES }),

  proxy("svc.http.proxy.url", "STRING", "HTTP proxy for requests to the instance (CONNECT for https).", {
    default: null,
    validator: httpUrl,
  }),
  proxy("svc.http.proxy.username", "STRING", "Proxy user for Basic proxy authentication.", { default: null }),
  proxy("svc.http.proxy.password", "PASSWORD", "Proxy password.", { default: null }),

  http(
    "svc.http.max.concurrent.requests",
    "INT",
    "Requests in flight to one instance per daemon process, shared by every connector and task targeting it.",
    {
      default: "8",
      validator: range(1),
    },
  ),
  http("svc.http.connect.timeout.ms", "INT", "TCP and TLS connect timeout.", {
    default: "10000",
    validator: range(1),
  }),
  http(
    "svc.http.request.timeout.ms",
    "INT",
    "Time to response headers; also bounds the wait for a concurrency permit.",
    {
      default: "60000",
      validator: range(1),
    },
  ),
  http(
    "svc.http.max.response.bytes",
    "LONG",
    "Largest response body accepted, counted after decompression.",
    {
      default: "67108864",
      validator: range(1024),
    },
  ),
  http("svc.http.user.agent", "STRING", "User-Agent header sent to the instance.", {
    default: `tablesync/${VERSION}`,
    validator: nonEmpty,
    importance: "LOW",
  }),
  http(
    "svc.http.adaptive.throttling",
    "BOOLEAN",
    "Steer the in-flight limit (1 to svc.http.max.concurrent.requests) by the instance's own signal: grow while the semaphore waits its responses report (Server-Timing sem_wait) stay near zero, shrink when they grow; halve it on any HTTP 429; without Server-Timing, recover one permit per 50 successful requests.",
    {
      default: "true",
    },
  ),
  http(
    "svc.http.rate.limit.pacing",
    "BOOLEAN",
    "When responses carry a rate-limit rule (X-RateLimit-Limit and X-RateLimit-Reset, and X-RateLimit-Remaining if present), spread requests so the window's budget, less a tenth held in reserve, lasts until its reset instead of running into 429. Shared by every task of the process per instance host.",
    {
      default: "true",
    },
  ),
  http(
    "svc.http.rate.limit.reserve",
    "DOUBLE",
    "The share of a rate-limit window's even pace that a catch-up keeps for the rest of the window (0 to 1). While a table catches up (its first sweep, a backlog, a backfill), requests may run ahead of the even pace as long as the budget left still pays this share of what the rest of the window needs at the even pace: early in a window a catch-up can spend up to 1 minus this share of the window's budget at once, and the rest of the window is paced by what is left. The polls of the rest of the window and the other integrations of the same user keep the remainder; the tenth of the rule held back by pacing is never spent. 1: no bursts, every request at the even pace. Connectors of one host that disagree get the larger.",
    {
      default: "0.5",
      validator: range(0, 1),
    },
  ),

  http(
    "svc.http.requests.per.hour",
    "INT",
    "Requests per hour this daemon's user may send to the instance (its rate-limit rule), shared by every connector and task of the host; in a worker group each member takes an equal share. When the instance also reports a rule (X-RateLimit-Limit), the smaller wins. Requests are paced within it (svc.http.rate.limit.pacing) and the source's poll scheduler spends it on the tables that change. Unset: only a rule the instance reports limits requests.",
    {
      default: null,
      validator: range(1),
    },
  ),

  retry("svc.retry.max.attempts", "INT", "Total attempts per request, including the first.", {
    default: "5",
    validator: range(1),
  }),
  retry(
    "svc.retry.max.elapsed.ms",
    "LONG",
    "No further retry when the next wait would pass this total time.",
    {
      default: "300000",
      validator: range(0),
    },
  ),
  retry(
    "svc.retry.initial.backoff.ms",
    "LONG",
    "First backoff ceiling (exponential backoff with full jitter).",
    {
      default: "500",
      validator: range(0),
    },
  ),
  retry("svc.retry.max.backoff.ms", "LONG", "Largest backoff ceiling.", {
    default: "30000",
    validator: range(0),
  }),
];
