/**
 * A record turned into what to send: the table, the operation, the row's sys id and the body after field
 * rules 1–4. Every mapping failure surfaces here, before any request, as a `MappingError`.
 */
import type { SinkRecord } from "../connect/record.ts";
import { mapBody } from "./field_rules/mod.ts";
import { readInput } from "./input.ts";
import { resolveOperation } from "./operation.ts";
import { sysIdFromKey } from "./record_key.ts";
import { routeRecord } from "./routing.ts";
import type { Operation, SinkSettings } from "./settings.ts";

export interface WritePlan {
  table: string;
  /** `upsert` only with a sys id (without one it is already `create`). */
  operation: Operation;
  sysId: string | null;
  /** The body after field rules 1–4, rendered; empty for a delete. */
  body: Record<string, string>;
  /**
   * Records with the same ordering key are written one after another, in offset order: the same row, or (for
   * keyless creates under correlation_lookup) the same correlation value. Null: no ordering constraint.
   */
  orderingKey: string | null;
}

export function planWrite(record: SinkRecord, settings: SinkSettings): WritePlan {
  const input = readInput(record.value, record.valueSchema);
  const sysId = sysIdFromKey(record.key, settings.sysIdKeyField);
  const operation = resolveOperation(record, input, sysId, settings.operation);
  const table = routeRecord(record, settings.routing);
  const body = operation === "delete" || input === null ? {} : mapBody(input, settings.fields);
  return { table, operation, sysId, body, orderingKey: orderingKey(table, sysId, body, settings) };
}

function orderingKey(
  table: string,
  sysId: string | null,
  body: Record<string, string>,
  settings: SinkSettings,
): string | null {
  if (sysId !== null) return `row\u0000${table}\u0000${sysId}`;
  const field = settings.ambiguousCreate === "correlation_lookup" ? settings.correlationField : null;
  const value = field === null ? undefined : body[field];
  // Two creates with one correlation value must not both find "no match" and both create.
  return value === undefined || value === "" ? null : `correlation\u0000${table}\u0000${value}`;
}

/** What can be said about a record that could not be planned, for its error report: best effort, never throws. */
export function describeUnplanned(
  record: SinkRecord,
  settings: SinkSettings,
): { table: string | null; sysId: string | null } {
  return {
    table: attempt(() => routeRecord(record, settings.routing)),
    sysId: attempt(() => sysIdFromKey(record.key, settings.sysIdKeyField)),
  };
}

function attempt<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}
