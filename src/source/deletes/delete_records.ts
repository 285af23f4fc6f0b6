/**
 * Audit rows to records. The audit stream's poller builds one marker per audit row (key = the deleted row's
 * sys_id, from `documentkey`), with the delete partition and the audit cursor as offset; `expand` turns the
 * markers of a page into what goes to the topic, in order:
 *
 * - DELETED: with the envelope on, first an envelope record (`op` "d", `after` null, `before` the sys_id only),
 *   then the tombstone (null value); both keyed by the row's sys_id, header `svc.source.operation` DELETE;
 * - after the last audit row of a key in the page (DELETED or RECOVERED), the row as it is now when it exists
 *   (recovered, or re-created with the same sys_id), built exactly as the table's own records (an upsert).
 *
 * Reading the current rows (one request per 100 keys of a page) is what keeps a key right when its audit rows
 * share a second: they are ordered by sys_id there, so a RECOVERED may come before its DELETED, and the topic
 * must still end with the row. Every record carries its audit row's offset in the delete partition, so the audit
 * cursor is committed only after Kafka acknowledged what it produced. Reading is retried until it succeeds or the
 * task stops: the audit cursor has moved past these rows, so giving up would lose the upserts.
 */
import { Header } from "../../connect/headers.ts";
import { type SourceOffset, type SourcePartition, SourceRecord } from "../../connect/record.ts";
import { Schema as Schemas } from "../../connect/schema.ts";
import type { TableRow } from "../../instance/mod.ts";
import type { Logger } from "../../observability/log.ts";
import { backoffCeiling, sleepRejectingOnAbort } from "../../common/delay.ts";
import type { Envelope } from "../envelope.ts";
import {
  HEADER_EXTRACTED_AT,
  HEADER_INSTANCE,
  HEADER_OPERATION,
  HEADER_SCHEMA_MODE,
  HEADER_TABLE,
  OPERATION_DELETE,
  type PageStamp,
  type RecordBuilder,
} from "../record_builder.ts";
import { FieldValueError, type RowValueBuilder } from "../schema_modes/mod.ts";
import { FIELD_DELETED, FIELD_RECOVERED } from "./audit_stream.ts";

export interface DeleteRecordsOptions {
  readonly topic: string;
  readonly table: string;
  readonly instance: string;
  readonly schemaMode: string;
  readonly sysIdField: string;
  /** The delete partition. */
  readonly partition: SourcePartition;
  /** The table's value builder and envelope, shared with the table's own records (one schema per topic). */
  readonly values: RowValueBuilder;
  readonly envelope: Envelope | null;
  /** The table's record builder under the delete partition: recovered rows. */
  readonly upserts: RecordBuilder;
  /** The rows that exist now among these sys_ids (in the display shape the table uses), by sys_id. */
  readonly readRows: (sysIds: string[], signal: AbortSignal) => Promise<Map<string, TableRow>>;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Told which records replace each audit row's marker (the overlap ledger follows its version to them). */
  readonly carry?: (marker: SourceRecord, records: readonly SourceRecord[]) => void;
}

/** Largest wait between attempts to read the current rows. */
const MAX_READ_BACKOFF_MS = 30_000;

interface Marker {
  readonly operation: string;
  readonly sysId: string;
  readonly page: PageStamp;
}

export class DeleteRecords {
  readonly #headers: Header[];
  readonly #markers = new WeakMap<SourceRecord, Marker>();

  constructor(private readonly o: DeleteRecordsOptions) {
    this.#headers = [
      new Header(HEADER_TABLE, Schemas.STRING_SCHEMA, o.table),
      new Header(HEADER_INSTANCE, Schemas.STRING_SCHEMA, o.instance),
      new Header(HEADER_OPERATION, Schemas.STRING_SCHEMA, OPERATION_DELETE),
    ];
  }

  startPage(_rows: readonly TableRow[], extractedAtMs: number): PageStamp {
    return {
      extractedAtMs,
      extractedAtHeader: new Header(HEADER_EXTRACTED_AT, Schemas.INT64_SCHEMA, extractedAtMs),
    };
  }

  /** The marker of one audit row; throws FieldValueError (a bad row) when it names no record or no operation. */
  build(
    row: TableRow,
    _auditId: string,
    timestampMs: number,
    offset: SourceOffset,
    page: PageStamp,
  ): SourceRecord {
    const sysId = typeof row.documentkey === "string" ? row.documentkey.trim() : "";
    if (sysId === "") throw new FieldValueError("documentkey", "is empty: the audit row names no record");
    const operation = String(row.fieldname ?? "");
    if (operation !== FIELD_DELETED && operation !== FIELD_RECOVERED) {
      throw new FieldValueError("fieldname", `is ${JSON.stringify(operation)}, not DELETED or RECOVERED`);
    }
    const marker = new SourceRecord({
      topic: this.o.topic,
      kafkaPartition: null,
      keySchema: Schemas.STRING_SCHEMA,
      key: sysId,
      valueSchema: null,
      value: null,
      timestamp: timestampMs,
      sourcePartition: this.o.partition,
      sourceOffset: offset,
    });
    this.#markers.set(marker, { operation, sysId, page });
    return marker;
  }

  /** The records of a page of markers, in the markers' order. */
  async expand(markers: SourceRecord[]): Promise<SourceRecord[]> {
    const lastOfKey = new Map<string, number>();
    markers.forEach((record, i) => {
      const m = this.#markers.get(record);
      if (m) lastOfKey.set(m.sysId, i);
    });
    if (lastOfKey.size === 0) return markers;
    const current = await this.#currentRows([...lastOfKey.keys()]);
    const out: SourceRecord[] = [];
    markers.forEach((record, i) => {
      const m = this.#markers.get(record);
      if (!m) return void out.push(record);
      const from = out.length;
      if (m.operation === FIELD_DELETED) out.push(...this.#deletion(record, m));
      const row = lastOfKey.get(m.sysId) === i ? current.get(m.sysId) : undefined;
      if (row) {
        const stamp = this.o.upserts.startPage([row], m.page.extractedAtMs);
        out.push(this.o.upserts.build(row, m.sysId, record.timestamp!, record.sourceOffset!, stamp));
      }
      this.o.carry?.(record, out.slice(from));
    });
    return out;
  }

  async #currentRows(sysIds: string[]): Promise<Map<string, TableRow>> {
    for (let attempt = 1;; attempt++) {
      try {
        return await this.o.readRows(sysIds, this.o.signal);
      } catch (error) {
        if (this.o.signal.aborted) throw error;
        const wait = backoffCeiling(attempt, 1000, MAX_READ_BACKOFF_MS);
        this.o.logger.warn(
          { table: this.o.table, rows: sysIds.length, attempt, waitMs: wait },
          `reading the current rows of deleted or recovered records of ${this.o.table} failed; retrying: ${
            (error as Error).message
          }`,
        );
        await sleepRejectingOnAbort(wait, this.o.signal);
      }
    }
  }

  #deletion(marker: SourceRecord, m: Marker): SourceRecord[] {
    const headers = [
      ...this.#headers,
      m.page.extractedAtHeader,
      new Header(HEADER_SCHEMA_MODE, Schemas.STRING_SCHEMA, this.o.schemaMode),
    ];
    const tombstone = marker.newRecord({ headers });
    if (this.o.envelope === null) return [tombstone];
    const image = { [this.o.sysIdField]: m.sysId };
    this.o.values.preparePage([image]);
    const value = this.o.envelope.wrapDelete(this.o.values.build(image), m.page.extractedAtMs);
    return [marker.newRecord({ valueSchema: value.schema, value: value.value, headers }), tombstone];
  }
}
