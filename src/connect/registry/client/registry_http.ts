/**
 * One JSON request to the schema registry, with the instance client's retry rules (src/common/retry_policy.ts:
 * 429, 408, 425 and 5xx are retried with full-jitter exponential backoff, `Retry-After` wins) and fail-over:
 * each attempt walks the configured URLs from the last one that answered, moving on at an I/O error, a
 * retryable status or a body that is not the expected JSON (checked by a zod shape), so one registry node down
 * costs no backoff.
 *
 * Credentials only ever travel in headers; messages and logs name the method, the path and the URL without
 * user info.
 */
import { z } from "zod";
import { isRetryableStatus, RetryPolicy } from "../../../common/retry_policy.ts";
import { parseRetryAfter } from "../../../common/retry_after.ts";
import { type Sleep, sleepEndingOnAbort } from "../../../common/delay.ts";
import { logger } from "../../../observability/log.ts";
import { redact } from "../../../observability/redact.ts";
import { RegistryResponseError, RegistryUnavailableError } from "./registry_errors.ts";
import { redactUrl, type RegistryClientSettings } from "./registry_client_settings.ts";
import { createRegistryHttpClient } from "./registry_tls.ts";

const log = logger("registry");

const CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
const ACCEPT = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, " +
  "application/json; qs=0.5";
/** Confluent's error body `{"error_code":40401,"message":"Subject 'x' not found."}`; others give the status. */
const ERROR_BODY = z.object({
  error_code: z.number().optional().catch(undefined),
  message: z.string().optional().catch(undefined),
});
/** Retries stop once the next wait would end this long after the first attempt. */
const MAX_ELAPSED_MS = 300_000;

interface Failure {
  readonly description: string;
  readonly retryAfterMs: number | null;
}
type Outcome<T> = { body: T } | { failure: Failure };

export class RegistryHttp {
  readonly #settings: RegistryClientSettings;
  readonly #policy: RetryPolicy;
  readonly #sleep: Sleep;
  #current = 0;
  #client: Promise<Deno.HttpClient | null> | null = null;

  constructor(settings: RegistryClientSettings, options: { sleep?: Sleep; random?: () => number } = {}) {
    this.#settings = settings;
    this.#sleep = options.sleep ?? sleepEndingOnAbort;
    this.#policy = new RetryPolicy({
      maxAttempts: settings.maxRetries + 1,
      maxElapsedMs: MAX_ELAPSED_MS,
      initialBackoffMs: settings.retryWaitMs,
      maxBackoffMs: settings.retryMaxWaitMs,
    }, options.random);
  }

  /**
   * Sends a request and returns the JSON body, checked against `shape`; throws `RegistryResponseError` or
   * `RegistryUnavailableError`.
   */
  async request<T>(method: "GET" | "POST", path: string, shape: z.ZodType<T>, body?: unknown): Promise<T> {
    const client = await (this.#client ??= createRegistryHttpClient(this.#settings));
    const started = Date.now();
    const label = `${method} ${path.replace(/\?.*$/, "")}`;
    const headers: Record<string, string> = { ...this.#settings.headers, Accept: ACCEPT };
    if (body !== undefined) headers["Content-Type"] = CONTENT_TYPE;
    if (this.#settings.authorization !== null) headers.Authorization = this.#settings.authorization;
    const init = {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      ...(client === null ? {} : { client }),
    };
    for (let attempt = 1;; attempt++) {
      let failure: Failure | null = null;
      const { urls } = this.#settings;
      for (let tried = 0; tried < urls.length; tried++) {
        const base = urls[this.#current];
        const outcome = await this.#send(`${base}${path}`, init, label, shape);
        if (!("failure" in outcome)) return outcome.body;
        failure = outcome.failure;
        if (urls.length > 1) {
          log.warn(
            { url: redactUrl(base), request: label, failure: failure.description },
            "schema registry failed; trying the next URL",
          );
        }
        this.#current = (this.#current + 1) % urls.length;
      }
      const decision = this.#policy.next(attempt, Date.now() - started, failure!.retryAfterMs);
      if (!decision.retry) {
        throw new RegistryUnavailableError(
          `Schema registry ${label} failed after ${attempt} attempt(s) on ${urls.length} URL(s): ` +
            `${failure!.description} (${
              attempt > this.#settings.maxRetries
                ? "max.retries reached"
                : `no retry within ${MAX_ELAPSED_MS} ms`
            })`,
        );
      }
      await this.#sleep(decision.waitMs);
    }
  }

  /** One attempt on one URL: the checked body, or a retryable failure; throws `RegistryResponseError`. */
  async #send<T>(url: string, init: RequestInit, label: string, shape: z.ZodType<T>): Promise<Outcome<T>> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(this.#settings.readTimeoutMs) });
      text = await response.text();
    } catch (error) {
      return failed(`I/O error: ${redact((error as Error).message)}`);
    }
    let json: unknown;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (response.ok) {
      if (json === undefined) return failed(`HTTP ${response.status} with a body that is not JSON`);
      const parsed = shape.safeParse(json);
      if (parsed.success) return { body: parsed.data };
      const fields = parsed.error.issues.map((issue) => issue.path.join(".")).join(", ");
      return failed(`HTTP ${response.status} with an unexpected body (${fields})`);
    }
    if (isRetryableStatus(response.status)) {
      const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), response.headers.get("date"));
      return failed(`HTTP ${response.status}`, retryAfterMs);
    }
    const { status } = response;
    const error = ERROR_BODY.safeParse(json).data ?? {};
    throw new RegistryResponseError(
      status,
      error.error_code ?? status,
      error.message ?? `HTTP ${status}`,
      label,
    );
  }

  close(): void {
    const pending = this.#client;
    this.#client = null;
    pending?.then((client) => client?.close(), () => {});
  }
}

/** A retryable failure of one attempt on one URL. */
function failed(description: string, retryAfterMs: number | null = null): { failure: Failure } {
  return { failure: { description, retryAfterMs } };
}
