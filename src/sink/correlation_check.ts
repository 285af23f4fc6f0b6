/**
 * At task start, `svc.sink.correlation.field` is checked against the dictionary of every table the sink can
 * know in advance (the fixed table, the topic_map tables or the header allowlist), inherited columns included: the instance drops a query term on
 * an unknown field, so a lookup by a misspelt field would answer unrelated rows. A misspelt field fails the
 * start naming it. Where the dictionary cannot be read, each lookup's rows
 * are checked instead (ambiguous_create.ts): a row that does not hold the value is never written to.
 */
import type { TableDictionary } from "../instance/mod.ts";
import type { SinkSettings } from "./settings.ts";

export class CorrelationFieldError extends Error {
  override name = "CorrelationFieldError";
}

/** The tables known before any record arrives. */
function knownTables(settings: SinkSettings): string[] {
  const routing = settings.routing;
  if (routing.mode === "fixed") return [routing.table];
  if (routing.mode === "topic_map") return [...new Set(routing.tables.values())];
  return [...routing.allowlist];
}

export async function checkCorrelationField(
  settings: SinkSettings,
  dictionary: (table: string) => Promise<TableDictionary | null>,
): Promise<void> {
  const field = settings.correlationField;
  if (field === null || settings.ambiguousCreate !== "correlation_lookup") return;
  for (const table of knownTables(settings)) {
    const found = await dictionary(table).catch(() => null);
    if (found !== null && !found.fields.has(field)) {
      throw new CorrelationFieldError(
        `svc.sink.correlation.field names field ${field}, which table ${table} does not have (its dictionary, ` +
          `inherited columns included): the instance would ignore the lookup's term and answer unrelated rows; ` +
          `correct the field name`,
      );
    }
  }
}
