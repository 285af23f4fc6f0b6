/** The table calls the sink makes; `TableClient` (src/instance) provides them. */
import type { TableClient } from "../instance/mod.ts";
import { errorEnvelopeText, InstanceHttpError } from "../instance/mod.ts";
import { recordStatusClassification, SinkRecordError } from "./record_error.ts";
import { refusalOf } from "./write_refusal.ts";

export type SinkTableApi = Pick<TableClient, "create" | "update" | "delete" | "list" | "get" | "dictionary">;

/**
 * What the sink asks a create or update to answer with (`sysparm_fields`): only the row's sys id, the one field
 * it reads back. Without it the instance renders, sends (base64-encoded in a batch answer) and the sink parses
 * the whole row, for every record.
 */
export const WRITE_ANSWER_FIELDS: readonly string[] = ["sys_id"];

/**
 * An instance answer that condemns this record (400, 403, 404, 409, 413, 422) as a record error, a 403 named by
 * the instance's words (write_refusal.ts); any other
 * error is returned unchanged (a 401 or a retries-exhausted failure concerns the task, not the record).
 */
export function asRecordError(error: unknown, retries = 0): unknown {
  if (!(error instanceof InstanceHttpError)) return error;
  const byStatus = recordStatusClassification(error.status);
  if (byStatus === null) return error;
  const instanceMessage = errorEnvelopeText(error.excerpt);
  const { classification, explanation } = refusalOf(error.status, byStatus, instanceMessage);
  return new SinkRecordError(
    classification,
    explanation ? `${explanation}: ${error.message}` : error.message,
    {
      status: error.status,
      retries,
      responseExcerpt: error.excerpt,
      instanceMessage: instanceMessage || null,
      cause: error,
    },
  );
}

/** True for an `InstanceHttpError` with this status. */
export function isHttpStatus(error: unknown, status: number): error is InstanceHttpError {
  return error instanceof InstanceHttpError && error.status === status;
}
