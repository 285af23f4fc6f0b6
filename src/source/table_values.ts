/**
 * The parts of a table's record values the source task sets up once per table: the value builder of the schema
 * mode (shared by the table's rows and, with deletion capture, its deletions) and the fields a `true` display
 * value keeps raw.
 */
import type { SourceTaskContext } from "../connect/task_api.ts";
import { createValueBuilder, type RowValueBuilder } from "./schema_modes/mod.ts";
import type { SourceSettings, TableSettings } from "./settings.ts";
import type { TypedType } from "./typed_coercion.ts";

/** Fields a `true` display value keeps raw: the cursor fields, and in typed mode the typed fields. */
export function keptRaw(
  table: TableSettings,
  settings: SourceSettings,
  typed: ReadonlyMap<string, TypedType>,
): Set<string> {
  const raw = new Set([table.timestampField, table.sysIdField]);
  if (settings.schemaMode === "typed") { for (const name of typed.keys()) raw.add(name); }
  return raw;
}

/** The table's row values in the schema mode; shared by its rows and, with deletion capture, its deletions. */
export function valueBuilderFor(
  table: TableSettings,
  settings: SourceSettings,
  typedFields: ReadonlyMap<string, TypedType>,
  context: SourceTaskContext,
): RowValueBuilder {
  return createValueBuilder({
    mode: settings.schemaMode,
    table: table.table,
    displayValue: table.displayValue,
    typedFields,
    evolution: settings.schemaEvolution,
    optionalSchema: settings.emitEnvelope,
    logger: context.logger,
  });
}
