/**
 * Source partition identity of a table: the table name (not the alias, so aliases can be renamed freely), the
 * lower-cased instance host, and a fingerprint of every other setting that changes which rows the cursor walks or
 * in which order: the base query, query.domain, the timestamp field and the sys id field. Changing any of them
 * gives a new partition, which starts again from its start timestamp.
 *
 * Compatibility: with the default cursor fields (`sys_updated_on`, `sys_id`) the fingerprint is the one earlier
 * versions computed from the query and query.domain alone, so existing offsets stay readable. A table with other
 * cursor fields gets a new partition once and starts again from its start timestamp (re-delivery, never loss):
 * its old partition may have been shared with another alias of the same table and query.
 */
import { createHash } from "node:crypto";
import type { SourcePartition } from "../connect/record.ts";

const PARTITION_TABLE = "table";
const PARTITION_INSTANCE = "instance";
const PARTITION_QUERY_FINGERPRINT = "query_fingerprint";

const DEFAULT_TIMESTAMP_FIELD = "sys_updated_on";
const DEFAULT_SYS_ID_FIELD = "sys_id";

/** The settings of a table that decide which rows its cursor walks, and in which order. */
export interface CursorScope {
  readonly query: string;
  readonly queryDomain: boolean;
  readonly timestampField: string;
  readonly sysIdField: string;
}

/**
 * A short stable digest of a table's cursor scope. Every part is trimmed; the query is otherwise taken as
 * written: two spellings of the same filter are different partitions, which errs on the side of re-reading.
 */
export function queryFingerprint(scope: CursorScope): string {
  const ts = scope.timestampField.trim(), id = scope.sysIdField.trim();
  let text = `${scope.query.trim()}\u0000query.domain=${scope.queryDomain}`;
  if (ts !== DEFAULT_TIMESTAMP_FIELD || id !== DEFAULT_SYS_ID_FIELD) {
    text += `\u0000timestamp.field=${ts}\u0000sys.id.field=${id}`;
  }
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

export function sourcePartition(table: string, instanceHost: string, scope: CursorScope): SourcePartition {
  return {
    [PARTITION_TABLE]: table,
    [PARTITION_INSTANCE]: instanceHost.toLowerCase(),
    [PARTITION_QUERY_FINGERPRINT]: queryFingerprint(scope),
  };
}
