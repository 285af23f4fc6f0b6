/** The source driver's send batches: records that go to Kafka in one producer send, and their size in bytes. */
import type { ProducedRecord } from "../../kafka/mod.ts";
import type { SubmittedRecord } from "../offsets/submitted_records.ts";

/** Records sent together (one producer send), with their offset handles and ack callbacks. */
export interface SendBatch {
  readonly out: ProducedRecord[];
  readonly handles: (SubmittedRecord | null)[];
  readonly onAck: ((() => void) | null)[] | null;
  bytes: number;
}

/** A record's bytes as sent: key, value and header values. */
export function sizeOf(record: ProducedRecord): number {
  let n = (record.key?.byteLength ?? 0) + (record.value?.byteLength ?? 0);
  const headers = record.headers;
  if (headers) { for (const name in headers) n += headers[name].length; }
  return n;
}
