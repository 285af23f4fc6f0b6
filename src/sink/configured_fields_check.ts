/**
 * At task start, the fields the sink's configuration names are checked against the dictionary of every table
 * the sink can know in advance (the fixed table, the topic_map tables or the header allowlist), inherited
 * columns included, so that a misspelt name fails the start naming it instead of acting silently:
 * - `svc.sink.correlation.field` (under `correlation_lookup`) must be a field of every such table: the instance
 *   drops a query term on an unknown field, so a lookup by a misspelt field would answer unrelated rows;
 * - `svc.sink.field.allowlist`, `svc.sink.field.denylist` and the targets of `svc.sink.field.rename` must each
 *   be a field of at least one of them: a misspelt allowlist entry leaves a field unwritten, a misspelt denylist
 *   entry writes the field it meant to keep out, a misspelt rename target writes nothing.
 * A table whose dictionary cannot be read is not checked, nor is any under `unknown.field.behavior=passthrough`
 * (for users who cannot read it); each correlation lookup's rows are then checked instead
 * (ambiguous_create.ts): a row that does not hold the value is never written to.
 */
import { ConfigError } from "../common/config_error.ts";
import type { TableDictionary } from "../instance/mod.ts";
import type { SinkSettings } from "./settings.ts";

/** A field the configuration names is not a field of the table(s): a `ConfigError` found at task start. */
export class ConfiguredFieldError extends ConfigError {}

/** The tables known before any record arrives. */
function knownTables(settings: SinkSettings): string[] {
  const routing = settings.routing;
  if (routing.mode === "fixed") return [routing.table];
  if (routing.mode === "topic_map") return [...new Set(routing.tables.values())];
  return [...routing.allowlist];
}

const HOW = "(its dictionary, inherited columns included)";

export async function checkConfiguredFields(
  settings: SinkSettings,
  dictionary: (table: string) => Promise<TableDictionary | null>,
): Promise<void> {
  const { allowlist, denylist, renames, unknownFieldBehavior } = settings.fields;
  const correlation = settings.ambiguousCreate === "correlation_lookup" ? settings.correlationField : null;
  // passthrough is for users who cannot read the dictionary: nothing is read (lookups are checked row by row).
  if (unknownFieldBehavior === "passthrough") return;
  if (correlation === null && !allowlist && !denylist && renames.size === 0) return;
  const readable: TableDictionary[] = [];
  for (const table of knownTables(settings)) {
    const found = await dictionary(table).catch(() => null);
    if (found !== null) readable.push(found);
  }
  if (readable.length === 0) return;
  const field = correlation;
  if (field !== null) {
    const lacking = readable.find((d) => !d.fields.has(field));
    if (lacking) {
      throw new ConfiguredFieldError(
        `svc.sink.correlation.field names field ${field}, which table ${lacking.table} does not have ${HOW}: ` +
          `the instance would ignore the lookup's term and answer unrelated rows; correct the field name`,
      );
    }
  }
  const named: Array<[string, string]> = [
    ...[...allowlist ?? []].map((f): [string, string] => [f, "svc.sink.field.allowlist"]),
    ...[...denylist ?? []].map((f): [string, string] => [f, "svc.sink.field.denylist"]),
    ...[...renames.values()].map((f): [string, string] => [f, "svc.sink.field.rename"]),
  ];
  const tables = readable.map((d) => d.table).join(", ");
  for (const [name, key] of named) {
    if (!readable.some((d) => d.fields.has(name))) {
      throw new ConfiguredFieldError(
        `${key} names field ${name}, which ${
          readable.length === 1 ? "table" : "none of the tables"
        } ${tables} ` +
          `${readable.length === 1 ? "does not have" : "has"} ${HOW}; correct the field name`,
      );
    }
  }
}
