/**
 * `svc.source.startup.probe`: before polling, one row per table (the cursor fields only, with display values)
 * verifies that the integration user can read the table and that the cursor fields exist and parse. A refusal or
 * a missing field fails the task at once with the table, alias and field named, instead of leaving a table to
 * back off forever. A retriable failure is only logged: polling backs off on its own.
 *
 * The same row tells the integration user's time zone: display values of date-times are in the user's zone, raw
 * values in UTC, so a different time of day means the zone is not UTC (the spec asks for UTC). The check is
 * by time of day only, so the user's date format does not matter.
 *
 * The request asks for the count (`X-Total-Count`, taken before access control): a table whose first row is
 * hidden from the user answers no row while the count says rows exist, and is not reported empty (the cursor
 * fields are then checked against the dictionary, as for an empty table).
 */
import type { Logger } from "../observability/log.ts";
import {
  EncodedQuery,
  InstanceHttpError,
  InstanceRetriableError,
  ResponseTooLargeError,
  type TableClient,
  type TableRow,
} from "../instance/mod.ts";
import type { InstanceTimeSource } from "./instance_time.ts";
import { readRowCursor } from "./row_cursor.ts";
import { readableDictionary, unknownQueryField } from "./query_field_check.ts";
import type { TableSettings } from "./settings.ts";

/** The task cannot poll a table as configured. */
export class StartupProbeError extends Error {
  override name = "StartupProbeError";
}

export interface ProbeOutcome {
  /** The probe read a row whose date-time display value shows a time zone other than UTC. */
  readonly nonUtcTimeZone: boolean;
  /** The table had no row to check (the cursor fields were checked against the dictionary when readable). */
  readonly empty: boolean;
  /** Rows the count says the table's query matches (before access control), when the instance sent it. */
  readonly rows: number | null;
}

function describe(t: TableSettings): string {
  return `table ${t.table} (alias ${t.alias})`;
}

/** True when a date-time's display value shows another time of day than its UTC value. */
function displayShowsNonUtc(field: unknown): boolean {
  if (typeof field !== "object" || field === null) return false;
  const { value, display_value: display } = field as Record<string, unknown>;
  if (typeof value !== "string" || typeof display !== "string" || value.length !== 19) return false;
  return !display.includes(value.slice(11));
}

export async function probeTable(
  client: TableClient,
  t: TableSettings,
  logger: Logger,
  signal: AbortSignal,
  clock: InstanceTimeSource,
): Promise<ProbeOutcome | null> {
  const unknownField = await unknownQueryField(client, t, logger, signal);
  if (unknownField !== null) throw new StartupProbeError(`startup probe: ${describe(t)}: ${unknownField}`);
  const fields = [t.sysIdField, t.timestampField];
  let rows: TableRow[];
  let total: number | null;
  try {
    const page = await client.list(t.table, {
      query: EncodedQuery.parse(t.query).toString(),
      limit: 1,
      count: true,
      fields,
      displayValue: "all",
      queryNoDomain: !t.queryDomain,
      queryCategory: t.queryCategory,
      signal,
    });
    rows = page.rows;
    total = page.total;
    clock.observe(page.instanceTime);
  } catch (error) {
    if (error instanceof InstanceRetriableError || error instanceof ResponseTooLargeError) {
      logger.warn(
        { table: t.table, alias: t.alias },
        `startup probe of ${describe(t)} did not complete: ${error.message}`,
      );
      return null;
    }
    if (error instanceof InstanceHttpError) {
      throw new StartupProbeError(
        `startup probe: ${describe(t)} is not readable by the integration user (HTTP ${error.status}); ` +
          `the cursor fields ${t.timestampField} and ${t.sysIdField} could not be verified: ${error.message}`,
        { cause: error },
      );
    }
    throw error;
  }
  if (rows.length === 0) {
    const counted = total ?? 0;
    await checkFieldsInDictionary(client, t, logger, signal, counted);
    return { nonUtcTimeZone: false, empty: counted === 0, rows: total };
  }
  const row = rows[0];
  for (const field of fields) {
    if (row[field] === undefined) {
      throw new StartupProbeError(
        `startup probe: ${
          describe(t)
        } returned no field ${field} (unknown field, or hidden from the integration user ` +
          `by access control); check svc.table.${t.alias}.${
            field === t.sysIdField ? "sys.id.field" : "timestamp.field"
          }`,
      );
    }
  }
  const cursor = readRowCursor(row, t.timestampField, t.sysIdField);
  if (!cursor.ok) {
    throw new StartupProbeError(`startup probe: ${describe(t)}, field ${cursor.field}: ${cursor.reason}`);
  }
  return { nonUtcTimeZone: displayShowsNonUtc(row[t.timestampField]), empty: false, rows: total };
}

/**
 * For a table that showed no row (empty, or `hiddenRows` counted rows whose first is hidden from the user): the
 * dictionary, when the user may read it, still tells whether the cursor fields exist.
 */
async function checkFieldsInDictionary(
  client: TableClient,
  t: TableSettings,
  logger: Logger,
  signal: AbortSignal,
  hiddenRows: number,
): Promise<void> {
  const dictionary = await readableDictionary(client, t.table, logger, signal);
  const what = hiddenRows > 0
    ? `counts ${hiddenRows} rows, but its first row is hidden from the integration user by access control`
    : "is empty";
  if (dictionary === null) {
    logger.info(
      { table: t.table, alias: t.alias },
      `startup probe: ${describe(t)} ${what}; cursor fields not verified`,
    );
    return;
  }
  logger.info({ table: t.table, alias: t.alias }, `startup probe: ${describe(t)} ${what}`);
  for (const field of [t.sysIdField, t.timestampField]) {
    if (!dictionary.fields.has(field)) {
      throw new StartupProbeError(`startup probe: ${describe(t)} has no field ${field} in its dictionary`);
    }
  }
}
