/**
 * At task start, every field a table's filter (`svc.table.<alias>.query`) and cursor (`timestamp.field`,
 * `sys.id.field`) name is checked against the table's dictionary, inherited columns included: the instance
 * would silently drop a query term on an unknown field and stream the whole table. Where the dictionary cannot
 * be read the check is skipped with a warning (the startup probe still reads the cursor fields from a row).
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
  if (dictionary === null) {
    logger.warn(
      { table: t.table, alias: t.alias },
      `the dictionary of table ${t.table} cannot be read: the fields of svc.table.${t.alias}.query and the ` +
        `cursor fields are not verified (an unknown field in a filter is ignored by the instance)`,
    );
    return null;
  }
  const named: Array<[string, string]> = [
    ...queryFields(t.query).map((f): [string, string] => [f, `svc.table.${t.alias}.query`]),
    [t.timestampField, `svc.table.${t.alias}.timestamp.field`],
    [t.sysIdField, `svc.table.${t.alias}.sys.id.field`],
  ];
  for (const [field, key] of named) {
    if (!dictionary.fields.has(field)) {
      return (
        `${key} names field ${field}, which table ${t.table} does not have (its dictionary, inherited ` +
        `columns included): the instance would ignore the term and read ${
          key.endsWith(".query") ? "every row" : "nothing it can order by"
        }; correct the field name`
      );
    }
  }
  return null;
}
