/**
 * Where deletions of a table are read: `sys_audit` rows with `tablename=<table>` and `fieldname` DELETED or
 * RECOVERED (the instance writes one for every deletion, audited table or not, except purges), keyset-ordered by
 * `sys_created_on, sys_id`. They are polled as a table of their own, with their own cursor, overlap and dedup,
 * under a source partition beside the table's: the table's partition plus `"stream": "deletes"`.
 */
import type { SourcePartition } from "../../connect/record.ts";
import { condition } from "../../instance/mod.ts";
import type { TableSettings } from "../settings.ts";

export const AUDIT_TABLE = "sys_audit";
export const FIELD_DELETED = "DELETED";
export const FIELD_RECOVERED = "RECOVERED";
const PARTITION_STREAM = "stream";
const STREAM_DELETES = "deletes";
/** The role that grants read access to sys_audit without admin (the instance's granular audit role). */
export const AUDIT_READ_ROLE = "audit_viewer";

const AUDIT_FIELDS = ["sys_id", "sys_created_on", "tablename", "documentkey", "fieldname"] as const;

/** The delete partition of a table: its own offsets, never mixed with the table's cursor. */
export function deletePartition(tablePartition: SourcePartition): SourcePartition {
  return { ...tablePartition, [PARTITION_STREAM]: STREAM_DELETES };
}

/** The encoded query of a table's deletion and recovery audit rows. */
export function auditQuery(table: string): string {
  return `${condition("tablename", "=", table)}^${
    condition("fieldname", "IN", [FIELD_DELETED, FIELD_RECOVERED])
  }`;
}

/**
 * The settings the audit rows are polled with: sys_audit under the table's alias, topic, page size and poll
 * interval, starting at `startTimestamp` when no delete offset is stored.
 */
export function auditTableSettings(table: TableSettings, startTimestamp: string): TableSettings {
  return {
    alias: table.alias,
    table: AUDIT_TABLE,
    topic: table.topic,
    startTimestamp,
    timestampField: "sys_created_on",
    sysIdField: "sys_id",
    modCountField: "sys_mod_count",
    query: auditQuery(table.table),
    fields: [...AUDIT_FIELDS],
    displayValue: "false",
    excludeReferenceLink: true,
    queryDomain: true,
    queryCategory: null,
    batchSize: table.batchSize,
    pollIntervalMs: table.pollIntervalMs,
    backfillParallelism: 1,
    captureDeletes: false,
    reconcileIntervalSeconds: 0,
  };
}
