/**
 * What the instance records when a row is deleted (table-api.md has no word on it; the behaviour follows the
 * instance's audit tables): every deletion, of any table, writes a `sys_audit` row with `fieldname=DELETED`,
 * `tablename` and `documentkey` (the row's sys_id); for an audited table the deleted record itself goes to
 * `sys_audit_delete` (`tablename`, `documentkey`, `payload` as XML). Restoring a deleted record from there
 * (an undelete) puts it back with its values and sys_id and writes a `RECOVERED` audit row. Purges that bypass
 * this (the instance's Table Cleaner) are direct deletes with `audit: false`.
 */
import type { Database } from "./database.ts";
import type { TableStore, WriteContext } from "./table_store.ts";

const AUDIT_TABLE = "sys_audit";
const AUDIT_DELETE_TABLE = "sys_audit_delete";
const DELETED = "DELETED";
const RECOVERED = "RECOVERED";

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => XML_ESCAPES[c]);
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot);/g,
    (_, e) => ({ amp: "&", lt: "<", gt: ">", quot: '"' })[e as "amp"],
  );
}

/** The record as the instance's XML payload: `<record_update table="t"><t><field>value</field>…</t></record_update>`. */
function recordXml(table: string, values: Record<string, string>): string {
  const fields = Object.entries(values).map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`).join("");
  return `<?xml version="1.0" encoding="UTF-8"?><record_update table="${table}"><${table}>${fields}</${table}></record_update>`;
}

export function parseRecordXml(xml: string): Record<string, string> {
  const out: Record<string, string> = {};
  const inner = /<record_update table="([a-z0-9_]+)"><\1>(.*)<\/\1><\/record_update>/s.exec(xml);
  if (!inner) throw new Error("not a record payload");
  for (const m of inner[2].matchAll(/<([a-z0-9_]+)>(.*?)<\/\1>/gs)) out[m[1]] = unescapeXml(m[2]);
  return out;
}

function audit(
  db: Database,
  table: string,
  sysId: string,
  fieldname: string,
  ctx: WriteContext,
  checkpoint: string,
) {
  db.store(AUDIT_TABLE)!.insert({
    tablename: table,
    documentkey: sysId,
    fieldname,
    oldvalue: "",
    newvalue: "",
    user: ctx.user,
    record_checkpoint: checkpoint,
  }, { ...ctx, suppressAutoSysFields: false });
}

/** Deletes `row` of `store`, recording the deletion in the audit tables. */
export function deleteAudited(db: Database, store: TableStore, row: number, ctx: WriteContext): void {
  const values = store.record(row);
  store.delete(row);
  audit(db, store.name, values.sys_id, DELETED, ctx, values.sys_mod_count ?? "");
  if (store.schema.audited) {
    db.store(AUDIT_DELETE_TABLE)!.insert({
      tablename: store.name,
      documentkey: values.sys_id,
      display_value: values[store.schema.displayField] ?? "",
      payload: recordXml(store.name, values),
    }, { ...ctx, suppressAutoSysFields: false });
  }
}

/**
 * Restores the latest deleted record `sysId` of `store` from sys_audit_delete and audits it as RECOVERED.
 * Returns the restored row, or -1 when there is no such deleted record (or the sys_id is in use again).
 */
export function recoverDeleted(db: Database, store: TableStore, sysId: string, ctx: WriteContext): number {
  if (store.rowBySysId(sysId) >= 0) return -1;
  const deletes = db.store(AUDIT_DELETE_TABLE)!;
  const table = deletes.reader("tablename")!;
  const key = deletes.reader("documentkey")!;
  const payload = deletes.reader("payload")!;
  let latest = -1;
  for (const row of deletes.liveRows()) {
    if (table.get(row) === store.name && key.get(row) === sysId) latest = row;
  }
  if (latest < 0) return -1;
  const values = parseRecordXml(payload.get(latest));
  const restored = store.insert(values, { ...ctx, suppressAutoSysFields: true });
  audit(db, store.name, sysId, RECOVERED, ctx, values.sys_mod_count ?? "");
  return restored;
}
