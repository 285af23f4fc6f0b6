/**
 * Chooses the row value builder of `svc.source.schema.mode`.
 *
 * ```ts
 * const values = createValueBuilder({ mode: "typed", table: "incident", displayValue: "false", ...rest });
 * values.preparePage(page.rows);
 * const value = values.build(page.rows[0]);
 * ```
 */
import type { Logger } from "../../observability/log.ts";
import type { DisplayValue } from "../../instance/mod.ts";
import type { SchemaEvolution, SchemaMode } from "../settings.ts";
import type { TypedType } from "../typed_coercion.ts";
import { SchemalessValues } from "./schemaless.ts";
import { StringsPolicy } from "./strings.ts";
import { StructValues } from "./struct_values.ts";
import { TypedPolicy } from "./typed.ts";
import type { RowValueBuilder } from "./value_builder.ts";

export type { RowValue, RowValueBuilder } from "./value_builder.ts";
export { FieldValueError } from "./value_builder.ts";

export interface ValueBuilderOptions {
  readonly mode: SchemaMode;
  readonly table: string;
  readonly displayValue: DisplayValue;
  readonly typedFields: ReadonlyMap<string, TypedType>;
  readonly evolution: SchemaEvolution;
  /** The row schema is optional: it sits in an envelope whose `before` is null. */
  readonly optionalSchema: boolean;
  readonly logger: Logger;
}

/** The Connect name of a table's value schema. */
function valueSchemaName(table: string): string {
  return `tablesync.${table}`;
}

export function createValueBuilder(o: ValueBuilderOptions): RowValueBuilder {
  const structOptions = { schemaName: valueSchemaName(o.table), optional: o.optionalSchema };
  switch (o.mode) {
    case "schemaless":
      return new SchemalessValues();
    case "strings":
      return new StructValues(new StringsPolicy(o), structOptions);
    case "typed":
      return new StructValues(new TypedPolicy(o.typedFields, o), structOptions);
  }
}
