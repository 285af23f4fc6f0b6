/**
 * Errors of registry calls. Messages pass through `redact` and never carry request bodies or credentials.
 *
 * - `RegistryResponseError`: the registry answered with an error (Confluent's `{"error_code":40401,...}`);
 *   callers branch on `errorCode` (subject or schema not found, incompatible schema).
 * - `RegistryUnavailableError`: every URL failed and retries ran out (I/O errors, 429, 408, 425, 5xx); the
 *   converters turn it into a `RetriableException` so the task retries instead of dropping the record.
 */
import { redact } from "../../../observability/redact.ts";

export class RegistryResponseError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
    readonly request: string,
  ) {
    super(redact(`Schema registry ${request} failed: ${message}; error code: ${errorCode} (HTTP ${status})`));
    this.name = "RegistryResponseError";
  }
}

export class RegistryUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(redact(message), options);
    this.name = "RegistryUnavailableError";
  }
}
