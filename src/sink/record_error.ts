/**
 * A record the sink cannot write, for a reason that will not go away by trying again: a value it cannot map,
 * or a status the instance gives for this record's content (400, 403, 404 under `not.found.behavior=fail`,
 * 409, 413, 422). Such a record is reported, offered to the dead letter queue and then handled by
 * `behavior.on.api.errors`; it never fails the task as retriable.
 *
 * Messages carry field names and paths but never field values: values may be personal data.
 */
import { redact } from "../observability/redact.ts";

/** What kind of permanent failure a record met; the reporter's `classification`. */
export type ErrorClassification =
  /** The value, key, headers or field rules do not give a writable body (input shape, routing, operation, nulls, nesting). */
  | "mapping"
  /** A field is absent from the target table's dictionary and `unknown.field.behavior` is `fail`. */
  | "invalid_field"
  | "bad_request"
  /** 403: a before business rule aborted the write (`Operation against file … aborted by Business Rule '…'`). */
  | "business_rule_abort"
  /** 403: a data policy found mandatory fields empty (`Data Policy Exception: … mandatory: …`). */
  | "data_policy"
  /** 403: access control refused the operation (`ACL Exception … Failed due to security constraints`, or other). */
  | "acl_denied"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "unprocessable"
  /** A create was sent, no answer came back, and the policy is `fail_ambiguous`. */
  | "ambiguous_create"
  /**
   * The transaction quota cancelled a create (200 with `Transaction cancelled: maximum execution time exceeded`):
   * whether the row exists is unknown, so it follows `svc.sink.create.ambiguous.behavior` like an unanswered one.
   */
  | "quota_cancelled"
  /** The instance answered 2xx but did not store fields the record sent (write ACL, read-only field, a rule). */
  | "not_written"
  /** `correlation_lookup` found more than one row with the correlation value. */
  | "correlation_ambiguous";

export interface SinkRecordErrorDetails {
  /** The final HTTP status, or null when the failure had no response (mapping, ambiguous create). */
  status?: number | null;
  /** Attempts beyond the first that the failure took. */
  retries?: number;
  /** A redacted excerpt of the instance's response body. */
  responseExcerpt?: string | null;
  /** The instance's own words (`error.message: error.detail`), when it gave any. */
  instanceMessage?: string | null;
  cause?: unknown;
}

/** Header names the dead letter queue adds, beside Connect's `__connect.errors.*` context headers. */
export const WRITE_CLASS_HEADER = "tablesync.errors.write.class";
export const INSTANCE_MESSAGE_HEADER = "tablesync.errors.instance.message";

export class SinkRecordError extends Error {
  readonly classification: ErrorClassification;
  readonly status: number | null;
  readonly retries: number;
  readonly responseExcerpt: string | null;
  readonly instanceMessage: string | null;

  constructor(classification: ErrorClassification, message: string, details: SinkRecordErrorDetails = {}) {
    super(redact(message), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "SinkRecordError";
    this.classification = classification;
    this.status = details.status ?? null;
    this.retries = details.retries ?? 0;
    this.responseExcerpt = details.responseExcerpt == null ? null : redact(details.responseExcerpt);
    this.instanceMessage = details.instanceMessage == null ? null : redact(details.instanceMessage);
  }

  /** What the dead letter queue adds to Connect's context headers (dead_letter_queue.ts reads it). */
  get errorContextHeaders(): Record<string, string> {
    const headers: Record<string, string> = { [WRITE_CLASS_HEADER]: this.classification };
    if (this.instanceMessage !== null) headers[INSTANCE_MESSAGE_HEADER] = this.instanceMessage;
    return headers;
  }
}

/** A record whose content cannot be turned into a request (the `mapping` classification). */
export class MappingError extends SinkRecordError {
  constructor(message: string) {
    super("mapping", message);
    this.name = "MappingError";
  }
}

/** The statuses that are a verdict on one record's content, and their classification. */
const RECORD_STATUSES: ReadonlyMap<number, ErrorClassification> = new Map([
  [400, "bad_request"],
  [403, "acl_denied"],
  [404, "not_found"],
  [409, "conflict"],
  [413, "payload_too_large"],
  [422, "unprocessable"],
]);

/**
 * The classification of a final HTTP status when it condemns the record, or null when it says something
 * about the connector as a whole (401 bad credentials, 405/415 a wrong endpoint): those fail the task rather
 * than send every record to the dead letter queue.
 */
export function recordStatusClassification(status: number): ErrorClassification | null {
  return RECORD_STATUSES.get(status) ?? null;
}
