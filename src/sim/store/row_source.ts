/** What the query engine and the serializer read from: a stored table or a database view. */
import type { FieldDef } from "../schema/fields.ts";

export interface ColumnReader {
  def: FieldDef;
  get(row: number): string;
  /** Epoch seconds for time fields (NaN when empty). */
  seconds?: (row: number) => number;
  /** The raw value as a JSON string literal (a cheaper path than JSON.stringify(get(row))). */
  json?: (row: number) => string;
}

/** Row numbers sorted by (sys_updated_on, sys_id); keyset queries walk a slice of it. */
export interface UpdatedOnIndex {
  /** The indexed field's name in this source (sys_updated_on, or a view's prefixed name). */
  readonly field: string;
  readonly sysIdField: string;
  readonly length: number;
  at(position: number): number;
  /** First position whose timestamp is >= secs. */
  lowerBound(secs: number): number;
  /** First position whose timestamp is > secs. */
  upperBound(secs: number): number;
}

export interface RowSource {
  readonly name: string;
  readonly label: string;
  readonly readOnly: boolean;
  readonly fieldNames: readonly string[];
  field(name: string): FieldDef | undefined;
  reader(name: string): ColumnReader | undefined;
  /** Live rows in natural (insertion) order. */
  liveRows(): Iterable<number>;
  readonly liveCount: number;
  readonly updatedIndex?: UpdatedOnIndex;
  /** The field that identifies a row (sys_id, or inc_sys_id for the view). */
  readonly idField: string;
  /** Row number of a sys_id, -1 when absent. */
  rowBySysId(sysId: string): number;
}
