/**
 * At task start, every field a table's filter (`svc.table.<alias>.query`), cursor (`timestamp.field`,
 * `sys.id.field`) and projection (`fields`) name is checked against the table's dictionary, inherited columns
 * included: the instance would silently drop a query term on an unknown field and stream the whole table, and
 * leave an unknown projected field out of every record. Where the dictionary cannot
 * be read, or lists no column (a database view: registered as a table, its columns are not in sys_dictionary),
 * the check is skipped with a warning (the startup probe still reads the cursor fields from a row).
 */
import type { Logger } from "../observability/log.ts";
import { queryFields, type TableClient, type TableDictionary } from "../instance/mod.ts";
import type { TableSettings } from "./settings.ts";

/** The table's dictionary, or null when it cannot be read (unknown table, no access, or a failed read). */
export async function readableDictionary(
  client: Pick<TableClient, "dictionary">,
  table: string,
  logger: Logger,
  signal: AbortSignal,
): Promise<TableDictionary | null> {
  try {
    return await client.dictionary(table, signal);
  } catch (error) {
    logger.debug({ table, error: (error as Error).message }, "dictionary not readable");
    return null;
  }
}

/** What is wrong with the fields a table's configuration names, or null when nothing is (or cannot be known). */
export async function unknownQueryField(
  client: Pick<TableClient, "dictionary">,
  t: TableSettings,
  logger: Logger,
  signal: AbortSignal,
): Promise<string | null> {
  const dictionary = await readableDictionary(client, t.table, logger, signal);
  // No column at all: a database view (its columns are not in sys_dictionary), nothing to judge by.
  if (dictionary === null || dictionary.fields.size === 0) {
    logger.warn(
      { table: t.table, alias: t.alias },
      `the dictionary of table ${t.table} cannot be read or lists no columns: the fields of svc.table.${t.alias}.query and the ` +
        `cursor fields are not verified (an unknown field in a filter is ignored by the instance)`,
    );
    return null;
  }
  const key = (name: string) => `svc.table.${t.alias}.${name}`;
  const named: ReadonlyArray<readonly [field: string, key: string, consequence: string]> = [
    ...queryFields(t.query).map((f) => [f, key("query"), "ignore the term and read every row"] as const),
    [t.timestampField, key("timestamp.field"), "have nothing to order by"],
    [t.sysIdField, key("sys.id.field"), "have nothing to order by"],
    // A dot-walked projection field (caller_id.name) by its column of this table.
    ...t.fields.map((f) => [f.split(".")[0], key("fields"), "leave it out of every record"] as const),
  ];
  for (const [field, name, consequence] of named) {
    if (!dictionary.fields.has(field)) {
      return `${name} names field ${field}, which table ${t.table} does not have (its dictionary, inherited ` +
        `columns included): the instance would ${consequence}; correct the field name`;
    }
  }
  return null;
}
