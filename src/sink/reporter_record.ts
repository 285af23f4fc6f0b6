/**
 * The reporter's JSON records (spec: Sink reporter record). Keyed by the row's sys id; the value says what
 * was done to which row and where the record came from, and on errors why it failed:
 *
 * ```json
 * {"operation":"update","table":"incident","sys_id":"46d44a…","status":200,"outcome":"updated",
 *  "request_id":"9b2f…","source":{"topic":"incidents","partition":0,"offset":42}}
 * {"operation":"create","table":"incident","sys_id":null,"status":400,"outcome":"failed",
 *  "request_id":"1c7e…","source":{"topic":"incidents","partition":0,"offset":43},
 *  "classification":"bad_request","retries":0,"response_excerpt":"{\"error\":{\"message\":…}}",
 *  "exception":"InstanceHttpError: POST /api/now/table/incident returned HTTP 400: …"}
 * ```
 *
 * Every text that comes from an error passes through `redact`: credentials never reach a reporter topic.
 */
import type { SinkRecord } from "../connect/record.ts";
import { redact } from "../observability/redact.ts";
import { sourceOf } from "./offset_tracker.ts";
import type { ErrorClassification } from "./record_error.ts";
import { SinkRecordError } from "./record_error.ts";

/**
 * The operation last sent (an upsert or an update that found no row and created one is a `create`); for a
 * record that failed before any request, the operation it asked for, or null when even that is unknown.
 */
export type ReportedOperation = "create" | "update" | "delete" | "upsert" | null;

export type Outcome =
  | "created"
  | "updated"
  | "deleted"
  /** An update or delete met 404 under `svc.sink.not.found.behavior=ignore` (or a delete under `create`). */
  | "not_found_ignored"
  /** Written, with fields left out under `svc.sink.unknown.field.behavior=drop` (error topic only). */
  | "fields_dropped"
  | "failed";

export interface ReportSource {
  topic: string;
  partition: number;
  offset: number;
}

export interface SuccessReport {
  operation: ReportedOperation;
  table: string | null;
  sys_id: string | null;
  /** The final HTTP status, or null when no request got an answer. */
  status: number | null;
  outcome: Outcome;
  request_id: string;
  source: ReportSource;
}

export interface ErrorReport extends SuccessReport {
  classification: ErrorClassification | "unknown_field_dropped";
  retries: number;
  response_excerpt: string | null;
  /** The instance's own words (`error.message: error.detail`), when it refused the write with any. */
  instance_message: string | null;
  exception: string;
}

export type Report = { kind: "success"; value: SuccessReport } | { kind: "error"; value: ErrorReport };

export interface ReportContext {
  record: SinkRecord;
  operation: ReportedOperation;
  table: string | null;
  sysId: string | null;
  requestId: string;
}

export function successReport(context: ReportContext, status: number, outcome: Outcome): Report {
  return { kind: "success", value: reportValue(context, status, outcome) };
}

export function errorReport(context: ReportContext, error: Error): Report {
  const recordError = error instanceof SinkRecordError ? error : null;
  return {
    kind: "error",
    value: {
      ...reportValue(context, recordError?.status ?? null, "failed"),
      classification: recordError?.classification ?? "mapping",
      retries: recordError?.retries ?? 0,
      response_excerpt: recordError?.responseExcerpt ?? null,
      instance_message: recordError?.instanceMessage ?? null,
      exception: describeException(error),
    },
  };
}

/** The fields a write left out under `unknown.field.behavior=drop`; the write itself is reported as a success. */
export function droppedFieldsReport(
  context: ReportContext,
  status: number,
  dropped: readonly string[],
): Report {
  return {
    kind: "error",
    value: {
      ...reportValue(context, status, "fields_dropped"),
      classification: "unknown_field_dropped",
      retries: 0,
      response_excerpt: null,
      instance_message: null,
      exception: `SinkRecordError: table "${context.table}" has no field ${
        dropped.map((d) => `"${d}"`).join(", ")
      }; left out (svc.sink.unknown.field.behavior=drop)`,
    },
  };
}

/** The fields every report has, in the order readers see them. */
function reportValue(context: ReportContext, status: number | null, outcome: Outcome): SuccessReport {
  const { topic, partition, offset } = sourceOf(context.record);
  return {
    operation: context.operation,
    table: context.table,
    sys_id: context.sysId,
    status,
    outcome,
    request_id: context.requestId,
    source: { topic, partition, offset },
  };
}

/** `Class: message`, from the error that explains the failure best (the instance's, when there is one). */
function describeException(error: Error): string {
  const cause = error instanceof SinkRecordError && error.cause instanceof Error ? error.cause : error;
  return redact(`${cause.name}: ${cause.message}`);
}
