/** What every schema mode provides: the Connect value (and schema) of one row. */
import type { Schema } from "../../connect/schema.ts";
import type { TableRow } from "../../instance/mod.ts";

export interface RowValue {
  readonly schema: Schema | null;
  readonly value: unknown;
}

export interface RowValueBuilder {
  /**
   * Sees a page before its rows are built, so that a schema covers every field of the page at once (the first
   * page fixes the initial schema; later pages may grow it).
   */
  preparePage(rows: readonly TableRow[]): void;
  /**
   * The value of one row (already in the configured display shape). Throws `FieldValueError` when a field's value
   * cannot be represented (typed mode, evolution `fail`): the row is then a bad row.
   */
  build(row: TableRow): RowValue;
}

/** A field of a row whose value does not fit: the row is a bad row naming this field. */
export class FieldValueError extends Error {
  override name = "FieldValueError";
  constructor(readonly field: string, reason: string, options?: ErrorOptions) {
    super(`field ${field}: ${reason}`, options);
  }
}
