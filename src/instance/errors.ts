/**
 * The errors callers of the instance client branch on. Every message passes through `redact`, so an error
 * can be logged, reported or returned by the REST API as it is.
 *
 * - `InstanceRetriableError`: retries ran out on a retryable failure (429, 408, 425, 5xx, transient I/O);
 *   the task should fail retriably and try again later.
 * - `AmbiguousRequestError`: a create (POST) was sent but its outcome is unknown; the sink applies its
 *   create policy (`svc.sink.create.ambiguous.behavior`).
 * - `InstanceHttpError`: the instance answered with a status outside the retryable set (400, 401, 403, 404…).
 * - `ResponseTooLargeError`: a body passed `svc.http.max.response.bytes` (a source may retry with a smaller page).
 * - `InstanceConfigError`: TLS, proxy, keystore or credential configuration that cannot work as given; it is a
 *   `ConfigError` (the family of every room's configuration errors), not an `InstanceError`.
 */
import { ConfigError } from "../common/config_error.ts";
import { redact } from "../observability/redact.ts";

/** Base class, so that callers can tell instance failures from their own bugs. */
export class InstanceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(redact(message), options);
    this.name = new.target.name;
  }
}

/** What a request was, for messages: never its query string, headers or body. */
export interface RequestLabel {
  method: string;
  /** Path only, without the query string (queries can be long and carry data values). */
  path: string;
}

function label(request: RequestLabel): string {
  return `${request.method} ${request.path}`;
}

/** Retries ran out (or the failure is retryable but not worth retrying in-process, like a truncated page). */
export class InstanceRetriableError extends InstanceError {
  readonly method: string;
  readonly path: string;
  /** The last HTTP status, or null when the last failure was an I/O error. */
  readonly status: number | null;
  readonly attempts: number;
  constructor(
    request: RequestLabel,
    status: number | null,
    attempts: number,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(
      `${label(request)} failed after ${attempts} attempt${attempts === 1 ? "" : "s"}` +
        `${status === null ? "" : ` (last status ${status})`}: ${reason}`,
      options,
    );
    this.method = request.method;
    this.path = request.path;
    this.status = status;
    this.attempts = attempts;
  }
}

/** A POST whose request was (possibly) sent but whose response never arrived: it may or may not have created a row. */
export class AmbiguousRequestError extends InstanceError {
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  constructor(request: RequestLabel, attempts: number, reason: string, options?: ErrorOptions) {
    super(`${label(request)} outcome unknown (request sent, no response): ${reason}`, options);
    this.method = request.method;
    this.path = request.path;
    this.attempts = attempts;
  }
}

/** A final HTTP status outside the retryable set, with a redacted excerpt of the response body. */
export class InstanceHttpError extends InstanceError {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** Redacted, at most EXCERPT_CHARS characters. */
  readonly excerpt: string;
  constructor(request: RequestLabel, status: number, body: string, detail = "") {
    const excerpt = redact(body).slice(0, EXCERPT_CHARS);
    super(
      `${label(request)} returned HTTP ${status}${detail ? `: ${detail}` : ""}${
        excerpt ? ` (body: ${excerpt})` : ""
      }`,
    );
    this.method = request.method;
    this.path = request.path;
    this.status = status;
    this.excerpt = excerpt;
  }
}

/** The response body passed the configured limit; reading stopped as soon as it did. */
export class ResponseTooLargeError extends InstanceError {
  readonly method: string;
  readonly path: string;
  readonly limitBytes: number;
  constructor(request: RequestLabel, limitBytes: number, compressed: boolean) {
    super(
      `${label(request)} response exceeds svc.http.max.response.bytes (${limitBytes} bytes` +
        `${compressed ? ", counted after decompression" : ""}); use a smaller page or raise the limit`,
    );
    this.method = request.method;
    this.path = request.path;
    this.limitBytes = limitBytes;
  }
}

/** TLS, proxy, keystore or credential settings that cannot work: retrying will not help. Its message is redacted. */
export class InstanceConfigError extends ConfigError {
  constructor(message: string, options?: ErrorOptions) {
    super(redact(message), options);
  }
}

/** Longest body excerpt kept in an `InstanceHttpError`. */
const EXCERPT_CHARS = 500;

/**
 * The instance clock cannot be read: no response carries a usable `Date` header (a proxy strips or mangles it).
 * Persistent: the source cannot fix its high-water mark, so the table cannot progress.
 */
export class InstanceClockError extends Error {
  constructor(readonly request: RequestLabel, reason: string) {
    super(`${request.method} ${request.path}: cannot read the instance clock: ${reason}`);
    this.name = "InstanceClockError";
  }
}
