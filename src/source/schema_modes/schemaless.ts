/**
 * `schemaless` mode: the value is the row as returned (a Map, no schema). Null and absent fields are preserved and
 * nothing is copied: the parsed JSON object is the value.
 */
import type { TableRow } from "../../instance/mod.ts";
import type { RowValue, RowValueBuilder } from "./value_builder.ts";

export class SchemalessValues implements RowValueBuilder {
  preparePage(_rows: readonly TableRow[]): void {}

  build(row: TableRow): RowValue {
    return { schema: null, value: row };
  }
}
