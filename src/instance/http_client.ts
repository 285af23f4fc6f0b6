/**
 * The one way requests reach an instance: per attempt, an Authorization header (basic, or an OAuth token
 * fetched before taking a permit so a token request can never deadlock behind its own caller), a permit from
 * the host's shared pool (waiting counts against the request timeout), the TCP connect check, fetch with the
 * request timeout bounding the time to response headers, and a capped body read. Around the attempts, the
 * spec's retry rules, the one-resend-after-401 rule for OAuth, and the ambiguous-create rule for POST.
 *
 * Each request also holds a cookie jar of its own while it holds its permit (session_jars.ts): one instance
 * session per concurrent stream, never one shared by two requests in flight. A 202 with an empty body is "not
 * done" (not_done.ts) and retried like a 429; a successful response's Server-Timing steers the permit limit.
 *
 * `request` returns the final response for any status outside the retryable set (2xx, 3xx, 4xx); deciding
 * what a 404 means is the caller's business (see table_client.ts).
 */
import { sleepRejectingOnAbort } from "../common/delay.ts";
import { logger } from "../observability/log.ts";
import type { Authenticator } from "./auth/authenticator.ts";
import { BasicAuthenticator } from "./auth/basic.ts";
import { OAuthAuthenticator } from "./auth/oauth.ts";
import { abandon, readCappedBody } from "./capped_body.ts";
import {
  AmbiguousRequestError,
  InstanceConfigError,
  InstanceError,
  InstanceRetriableError,
  type RequestLabel,
} from "./errors.ts";
import { InstanceClock } from "./instance_clock.ts";
import { HostCounters } from "./instance_metrics.ts";
import { type InstanceAddress, parseInstanceUrl } from "./instance_url.ts";
import type { InstanceSettings } from "./settings.ts";
import type { LoadSample } from "./adaptive_limit.ts";
import type { PermitPool } from "./permit_pool.ts";
import { permitPoolFor } from "./permit_registry.ts";
import { parseRetryAfter } from "../common/retry_after.ts";
import { RatePacer } from "./rate_pacer.ts";
import { isRetryableStatus, RetryPolicy } from "../common/retry_policy.ts";
import type { CookieJar } from "./cookie_jar.ts";
import { isNotDone, NOT_DONE_REASON } from "./not_done.ts";
import { parseServerTiming } from "./server_timing.ts";
import { type SessionJars, sessionJarsFor } from "./session_jars.ts";
import { classifyTransportFailure, HeadersTimeoutError } from "./transport_errors.ts";
import { InstanceTransport, type TcpConnector } from "./transport.ts";
import { VERSION } from "../version.ts";
import { requestUrl } from "./request_url.ts";

const log = logger("instance");

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface InstanceRequest {
  method: HttpMethod;
  /** Path on the instance, e.g. "/api/now/table/incident"; an absolute URL is allowed for the token endpoint. */
  path: string;
  query?: URLSearchParams | Record<string, string>;
  /** JSON request body. */
  json?: unknown;
  /** Form request body (application/x-www-form-urlencoded). */
  form?: URLSearchParams;
  /** Aborts waiting, sending and backoff; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Safe to repeat after an unknown outcome. Defaults to true for every method but POST, whose unknown
   * outcome surfaces as `AmbiguousRequestError`.
   */
  idempotent?: boolean;
  /** Send without the Authorization header (the token request). */
  anonymous?: boolean;
  /** About how large the response body will be (BodyLimits.expectedBytes): read into one buffer that size. */
  expectedBodyBytes?: number;
  /**
   * What the request counts against a rate-limit rule (default 1): a Batch API request counts its items (the
   * instance runs each of them as a request of its own) and itself.
   */
  rateLimitCost?: number;
}

export interface InstanceResponse {
  status: number;
  headers: Headers;
  /** The body after decompression, at most `svc.http.max.response.bytes`. */
  body: Uint8Array;
  /** Attempts made, the last one included (a resend after a 401 is not counted). */
  attempts: number;
  /** The response's `Date` header: the instance clock. */
  date: Date | null;
}

/** Hooks for tests: randomness of the jitter, sleeping between attempts, and the TCP connect check. */
export interface HttpClientHooks {
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  connector?: TcpConnector;
}

type AttemptOutcome =
  | { kind: "response"; response: InstanceResponse; authorization: string | null }
  | { kind: "retryable_status"; status: number; retryAfterMs: number | null; excerpt: string }
  | { kind: "io"; reason: string; maybeSent: boolean };

export class InstanceHttpClient {
  readonly clock = new InstanceClock();
  private readonly auth: Authenticator;
  private readonly retryPolicy: RetryPolicy;
  private readonly counters: HostCounters;
  private readonly pacer: RatePacer;
  /** A cookie jar (an instance session) per request in flight (session_jars.ts). */
  private readonly jars: SessionJars;
  private readonly userAgent: string;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  private constructor(
    readonly settings: InstanceSettings,
    readonly address: InstanceAddress,
    readonly pool: PermitPool,
    private readonly transport: InstanceTransport,
    hooks: HttpClientHooks,
  ) {
    this.retryPolicy = new RetryPolicy(settings.retry, hooks.random);
    this.sleep = hooks.sleep ?? sleepRejectingOnAbort;
    this.counters = new HostCounters(pool.buffer, address.host);
    this.pacer = new RatePacer(pool.views);
    if (settings.http.rateLimitPacing && settings.http.requestsPerHour) {
      this.pacer.configure(settings.http.requestsPerHour);
    }
    if (settings.http.rateLimitPacing) this.pacer.configureBurstReserve(settings.http.rateLimitReserve);
    this.jars = sessionJarsFor(address.host, sessionIdentity(settings.auth));
    this.userAgent = settings.http.userAgent.replaceAll("<version>", VERSION);
    this.auth = settings.auth.type === "basic"
      ? new BasicAuthenticator(settings.auth)
      : new OAuthAuthenticator(settings.auth, address.origin, async (url, form) => {
        const tokenRequest = { method: "POST", path: url, form, idempotent: true, anonymous: true } as const;
        const response = await this.request(tokenRequest);
        return { status: response.status, body: new TextDecoder().decode(response.body) };
      });
  }

  /** Builds a client: loads trust and key stores, creates the HTTP client, joins the host's permit pool. */
  static async create(
    settings: InstanceSettings,
    hooks: HttpClientHooks = {},
  ): Promise<InstanceHttpClient> {
    const address = parseInstanceUrl(settings.url);
    const transport = await InstanceTransport.create(address, settings, hooks.connector);
    const pool = permitPoolFor(address.host, settings.http.maxConcurrentRequests);
    return new InstanceHttpClient(settings, address, pool, transport, hooks);
  }

  /** Closes pooled connections. In-flight requests fail. */
  close(): void {
    this.transport.close();
  }

  async request(request: InstanceRequest): Promise<InstanceResponse> {
    const url = requestUrl(request.path, request.query, this.address.origin);
    const label: RequestLabel = { method: request.method, path: url.pathname };
    const idempotent = request.idempotent ?? request.method !== "POST";
    const started = Date.now();
    let resentAfter401 = false;
    for (let attempt = 1;; attempt++) {
      const outcome = await this.attempt(request, url, label, attempt);
      if (outcome.kind === "response") {
        const { response, authorization } = outcome;
        if (
          response.status === 401 && authorization !== null && !resentAfter401 &&
          this.auth.refreshAfter401(authorization)
        ) {
          resentAfter401 = true;
          attempt--;
          log.info(
            { method: label.method, path: label.path },
            "401 with a bearer token; resending once with a fresh token",
          );
          continue;
        }
        return response;
      }
      if (outcome.kind === "io" && outcome.maybeSent && !idempotent) {
        throw new AmbiguousRequestError(label, attempt, outcome.reason);
      }
      const retryAfterMs = outcome.kind === "retryable_status" ? outcome.retryAfterMs : null;
      const decision = this.retryPolicy.next(attempt, Date.now() - started, retryAfterMs);
      const lastStatus = outcome.kind === "retryable_status" ? outcome.status : null;
      const lastFailure = outcome.kind === "retryable_status"
        ? `HTTP ${outcome.status}${outcome.excerpt ? ` ${outcome.excerpt}` : ""}`
        : outcome.reason;
      if (!decision.retry) {
        throw new InstanceRetriableError(
          label,
          lastStatus,
          attempt,
          `${lastFailure}; not retried: ${decision.reason}`,
        );
      }
      this.counters.retry();
      log.debug(
        { method: label.method, path: label.path, attempt, waitMs: decision.waitMs, status: lastStatus },
        `retrying after ${lastFailure}`,
      );
      await this.sleep(decision.waitMs, request.signal);
    }
  }

  private async attempt(
    request: InstanceRequest,
    url: URL,
    label: RequestLabel,
    attempt: number,
  ): Promise<AttemptOutcome> {
    const { signal } = request;
    const { requestTimeoutMs, maxResponseBytes, adaptiveThrottling, rateLimitPacing } = this.settings.http;
    // Pacing waits for the rule's window, which may be long: it does not count against the request timeout.
    const cost = request.rateLimitCost ?? 1;
    if (rateLimitPacing) await this.paced(signal, cost);
    const deadline = Date.now() + requestTimeoutMs;
    let authorization: string | null = null;
    let permit: { release(): void } | null = null;
    let jar: CookieJar | null = null;
    const controller = new AbortController();
    const onCallerAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener("abort", onCallerAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    let sending = false;
    try {
      // The token (if any) first: its own request needs a permit too.
      if (!request.anonymous) authorization = await this.auth.authorization(signal);
      permit = await this.pool.acquire(deadline, signal);
      // The token request goes without a session: it is not the integration user's.
      if (!request.anonymous) jar = this.jars.take();
      await this.transport.ensureConnectable(signal);
      // The error is made only when the timer fires: an Error captures a stack trace, costly on every request.
      timer = setTimeout(
        () => controller.abort(new HeadersTimeoutError(requestTimeoutMs)),
        Math.max(0, deadline - Date.now()),
      );
      // Underway from here (permit held) until settled: a window learned meanwhile counts its cost.
      if ((sending = rateLimitPacing)) this.pacer.sending(cost, this.pool.inFlight);
      const sentAt = Date.now();
      const sentAtMonotonic = performance.now(); // the latency histogram's clock
      const response = await fetch(url, {
        method: request.method,
        headers: this.headersFor(request, authorization, jar),
        body: request.json !== undefined ? JSON.stringify(request.json) : request.form?.toString(),
        client: this.transport.client,
        signal: controller.signal,
        redirect: "manual",
      });
      clearTimeout(timer);
      const receivedAt = Date.now();
      this.transport.answered();
      this.counters.status(response.status, sentAtMonotonic);
      if (jar) this.keepSession(jar, response);
      const date = this.clock.observe(response.headers.get("date"), receivedAt);
      if (rateLimitPacing) this.pacer.observe(response.headers, receivedAt, cost, response.status);

      if (response.status === 407) {
        if (response.body) abandon(response.body);
        throw new InstanceConfigError(
          `the proxy refused the request (HTTP 407); check svc.http.proxy.username and svc.http.proxy.password`,
        );
      }
      if (isRetryableStatus(response.status)) {
        if (response.status === 429 && adaptiveThrottling) this.onThrottled();
        const excerpt = await this.excerptOf(response, label);
        return {
          kind: "retryable_status",
          status: response.status,
          retryAfterMs: parseRetryAfter(response.headers.get("retry-after"), response.headers.get("date")),
          excerpt,
        };
      }
      const body = await readCappedBody(
        response,
        { maxBytes: maxResponseBytes, idleMs: requestTimeoutMs, expectedBytes: request.expectedBodyBytes },
        label,
      );
      if (isNotDone(response.status, body)) {
        // Not done, and the session is clogged (a request abandoned earlier may still run on it): a new one.
        jar?.clear();
        this.counters.notDone();
        return { kind: "retryable_status", status: 202, retryAfterMs: null, excerpt: NOT_DONE_REASON };
      }
      if (adaptiveThrottling) this.pool.succeeded(this.loadSample(response.headers, receivedAt - sentAt));
      return {
        kind: "response",
        authorization: request.anonymous ? null : authorization,
        response: { status: response.status, headers: response.headers, body, attempts: attempt, date },
      };
    } catch (error) {
      clearTimeout(timer);
      // An abandoned request may still run in the jar's session (so may one that timed out, below).
      if (signal?.aborted) {
        jar?.clear();
        throw signal.reason;
      }
      // Already explained: too large, configuration, or a token request that failed for good.
      if (error instanceof InstanceError || error instanceof InstanceConfigError) throw error;
      const failure = classifyTransportFailure(error);
      if (failure.kind === "tls") {
        throw new InstanceConfigError(`${label.method} ${this.address.origin}: ${failure.reason}`);
      }
      if (/\b407\b|proxy/i.test(failure.reason) && this.settings.proxy) {
        throw new InstanceConfigError(
          `the proxy refused the connection (${failure.reason}); check svc.http.proxy.*`,
        );
      }
      this.counters.ioError();
      jar?.clear();
      return { kind: "io", reason: failure.reason, maybeSent: failure.kind === "maybe_sent" };
    } finally {
      signal?.removeEventListener("abort", onCallerAbort);
      if (jar) this.jars.give(jar);
      if (sending) this.pacer.settled(cost); // before the permit goes: a tallied request always holds one
      permit?.release();
    }
  }

  /**
   * Keeps what Set-Cookie brought in the request's jar. A 401 drops the jar: its session is no longer this
   * user's (expired, logged out, or a new token is coming).
   */
  private keepSession(jar: CookieJar, response: Response): void {
    if (response.status === 401) {
      jar.clear();
      return;
    }
    const change = jar.store(response.headers.getSetCookie());
    if (change !== "same") this.counters.sessionOpened();
  }

  /** The response's Server-Timing as a load sample for the adaptive limit; counts a session wait. */
  private loadSample(headers: Headers, rttMs: number): LoadSample | null {
    const timing = parseServerTiming(headers.get("server-timing"));
    if (timing === null) return null;
    if (timing.seshWaitMs !== null && timing.seshWaitMs > 0) this.counters.sessionWait();
    return { semWaitMs: timing.semWaitMs, rttMs };
  }

  /** The host's request budget (rate_pacer.ts), or null when pacing is off: the poll scheduler spends it. */
  get budget(): RatePacer | null {
    return this.settings.http.rateLimitPacing ? this.pacer : null;
  }

  /** Waits for this request's turn under the host's rate-limit rule, if one is known. */
  private async paced(signal: AbortSignal | undefined, cost: number): Promise<void> {
    for (;;) {
      const { waitMs, retry } = this.pacer.schedule(Date.now(), cost);
      if (waitMs > 0) await this.sleep(waitMs, signal);
      if (!retry) return;
      log.debug(
        { host: this.address.host, waitMs },
        "rate-limit budget spent; waited for the window to reset",
      );
    }
  }

  private onThrottled(): void {
    const before = this.pool.limit;
    const after = this.pool.throttled();
    if (after < before) {
      log.warn(
        { host: this.address.host, limit: after, max: this.pool.max },
        "HTTP 429: in-flight limit halved",
      );
    }
  }

  /** A short, redacted excerpt of an error body; never fails the attempt. */
  private async excerptOf(response: Response, label: RequestLabel): Promise<string> {
    try {
      const limits = { maxBytes: 4096, idleMs: this.settings.http.requestTimeoutMs };
      const body = await readCappedBody(response, limits, label);
      return new TextDecoder().decode(body).replace(/\s+/g, " ").trim().slice(0, 300);
    } catch {
      return "";
    }
  }

  /** A plain record: fetch copies headers into its own list either way, and a Headers object costs more. */
  private headersFor(
    request: InstanceRequest,
    authorization: string | null,
    jar: CookieJar | null,
  ): Record<string, string> {
    const headers: Record<string, string> = { "accept": "application/json", "user-agent": this.userAgent };
    if (authorization !== null) headers["authorization"] = authorization;
    const cookie = jar?.header();
    if (cookie) headers["cookie"] = cookie;
    if (request.json !== undefined) headers["content-type"] = "application/json";
    if (request.form) headers["content-type"] = "application/x-www-form-urlencoded";
    return headers;
  }
}

/** Whose sessions a client's jars hold: the user, or the OAuth client (and the user it acts as). */
function sessionIdentity(auth: InstanceSettings["auth"]): string {
  return auth.type === "basic" ? `basic:${auth.username}` : `oauth2:${auth.clientId}:${auth.username ?? ""}`;
}
