/**
 * A row to a SourceRecord: key = the sys id (STRING schema in every mode), timestamp = the row's cursor timestamp,
 * the `svc.*` headers, the value in the schema mode (optionally enveloped), and the source partition and offset.
 *
 * Headers that are the same for every record of a table are built once and shared (Connect headers are
 * immutable); `svc.extracted_at` (epoch milliseconds, INT64) is built once per page.
 */
import { Header } from "../connect/headers.ts";
import { type SourceOffset, type SourcePartition, SourceRecord } from "../connect/record.ts";
import { Schema as Schemas } from "../connect/schema.ts";
import type { TableRow } from "../instance/mod.ts";
import type { Envelope } from "./envelope.ts";
import type { RowValueBuilder } from "./schema_modes/mod.ts";

export const HEADER_TABLE = "svc.table";
export const HEADER_INSTANCE = "svc.instance";
export const HEADER_OPERATION = "svc.source.operation";
export const HEADER_EXTRACTED_AT = "svc.extracted_at";
export const HEADER_SCHEMA_MODE = "svc.schema.mode";
/** The source cannot tell creates from updates: every record is an upsert. */
const OPERATION_UPSERT = "UPSERT";
/** A captured deletion (svc.table.<alias>.capture.deletes): the envelope record and the tombstone. */
export const OPERATION_DELETE = "DELETE";

export interface RecordBuilderOptions {
  readonly topic: string;
  readonly table: string;
  readonly instance: string;
  readonly schemaMode: string;
  readonly partition: SourcePartition;
  readonly values: RowValueBuilder;
  readonly envelope: Envelope | null;
  /** Told of each record built with its row (the reconcile state notes its version and digest). */
  readonly observe?: (record: SourceRecord, row: TableRow) => void;
}

/** One page's shared parts. */
export interface PageStamp {
  readonly extractedAtMs: number;
  readonly extractedAtHeader: Header;
}

export class RecordBuilder {
  readonly #table: Header;
  readonly #instance: Header;
  readonly #operation: Header;
  readonly #mode: Header;

  constructor(private readonly o: RecordBuilderOptions) {
    this.#table = new Header(HEADER_TABLE, Schemas.STRING_SCHEMA, o.table);
    this.#instance = new Header(HEADER_INSTANCE, Schemas.STRING_SCHEMA, o.instance);
    this.#operation = new Header(HEADER_OPERATION, Schemas.STRING_SCHEMA, OPERATION_UPSERT);
    this.#mode = new Header(HEADER_SCHEMA_MODE, Schemas.STRING_SCHEMA, o.schemaMode);
  }

  /** Called once per page with the page's rows (the schema modes size their schema from them). */
  startPage(rows: readonly TableRow[], extractedAtMs: number): PageStamp {
    this.o.values.preparePage(rows);
    return {
      extractedAtMs,
      extractedAtHeader: new Header(HEADER_EXTRACTED_AT, Schemas.INT64_SCHEMA, extractedAtMs),
    };
  }

  /** Throws `FieldValueError` when the row's value cannot be built (a bad row). */
  build(
    row: TableRow,
    sysId: string,
    timestampMs: number,
    offset: SourceOffset,
    page: PageStamp,
  ): SourceRecord {
    let value = this.o.values.build(row);
    if (this.o.envelope !== null) value = this.o.envelope.wrap(value, page.extractedAtMs);
    const record = new SourceRecord({
      topic: this.o.topic,
      kafkaPartition: null,
      keySchema: Schemas.STRING_SCHEMA,
      key: sysId,
      valueSchema: value.schema,
      value: value.value,
      timestamp: timestampMs,
      headers: [this.#table, this.#instance, this.#operation, page.extractedAtHeader, this.#mode],
      sourcePartition: this.o.partition,
      sourceOffset: offset,
    });
    this.o.observe?.(record, row);
    return record;
  }
}
