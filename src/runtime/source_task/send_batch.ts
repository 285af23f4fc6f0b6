/**
 * The source driver's send batches: records that go to Kafka in one producer send, the task's callbacks for them,
 * and their size in bytes.
 */
import type { ProducedRecord } from "../../kafka/mod.ts";
import type { SubmittedRecord } from "../offsets/submitted_records.ts";
import type { SourceTask } from "../../connect/task_api.ts";
import type { SourceRecord } from "../../connect/record.ts";

/** What the task asked to be called for one record (SourceTask's whenAcknowledged and whenCommitted). */
export interface RecordCallbacks {
  readonly acknowledged: (() => void) | null;
  readonly committed: (() => void) | null;
}

/** The task's callbacks for `record`, or null when it wants none (most records of a task without them). */
export function callbacksOf(task: SourceTask, record: SourceRecord): RecordCallbacks | null {
  const acknowledged = task.whenAcknowledged?.(record) ?? null;
  const committed = task.whenCommitted?.(record) ?? null;
  return acknowledged === null && committed === null ? null : { acknowledged, committed };
}

/** Records sent together (one producer send), with their offset handles and the task's callbacks. */
export interface SendBatch {
  readonly out: ProducedRecord[];
  readonly handles: (SubmittedRecord | null)[];
  readonly callbacks: (RecordCallbacks | null)[] | null;
  bytes: number;
}

/** A record's bytes as sent: key, value and header values. */
export function sizeOf(record: ProducedRecord): number {
  let n = (record.key?.byteLength ?? 0) + (record.value?.byteLength ?? 0);
  const headers = record.headers;
  if (headers) { for (const name in headers) n += headers[name].length; }
  return n;
}
