/**
 * Where the rows of a sweep's window begin before access control: the Aggregate API's MIN of the timestamp field
 * over the window (`sysparm_min_fields`), asked when a first sweep's first page came back empty with a count over
 * the limit (sweep.ts, wantsEarliest). Null when the API is not available to the user or fails: the sweep then
 * cuts from its start.
 */
import type { Logger } from "../observability/log.ts";
import { aggregateMin, type TableClient } from "../instance/mod.ts";
import type { KeysetQuery } from "./keyset_query.ts";
import type { TableSettings } from "./settings.ts";
import type { Sweep } from "./sweep.ts";

export async function earliestRow(
  client: TableClient,
  t: TableSettings,
  query: KeysetQuery,
  sweep: Sweep,
  logger: Logger,
  signal: AbortSignal,
): Promise<string | null> {
  const { start, end } = sweep.window;
  let why: string;
  try {
    const result = await aggregateMin(
      client.http,
      t.table,
      t.timestampField,
      query.filter(start, end),
      signal,
    );
    if ("min" in result) return result.min;
    why = result.unavailable;
  } catch (error) {
    why = (error as Error).message;
  }
  logger.info(
    { table: t.table, alias: t.alias },
    `the first rows of ${t.table} are hidden and where its rows begin is unknown: ${why}`,
  );
  return null;
}
