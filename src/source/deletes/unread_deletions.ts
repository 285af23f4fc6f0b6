/**
 * Which rows a table with deletion capture may send ahead of its cursor (hot_tail.ts). The table's sweeps stay
 * behind the deletions read (delete_horizon.ts) so that a row re-created or restored after its deletion never
 * reaches the topic before the deletion's tombstone. A row sent ahead is past that bound; it keeps the promise
 * when no deletion of its key was written after the horizon: one request asks `sys_audit` for those keys, and the
 * keys it names wait for the sweep that reaches them, as before (one request per 100 keys of a tail that has
 * rows). Before the first audit sweep ended, none goes.
 */
import { condition, type TableClient } from "../../instance/mod.ts";
import type { TableSettings } from "../settings.ts";
import { AUDIT_TABLE, FIELD_DELETED } from "./audit_stream.ts";
import type { DeleteHorizon } from "./delete_horizon.ts";

/** The sys ids among `sysIds` with a deletion not read yet (all of them before the first audit sweep ended). */
export async function unreadDeletions(
  client: TableClient,
  table: TableSettings,
  horizon: Pick<DeleteHorizon, "through">,
  sysIds: readonly string[],
  signal: AbortSignal,
): Promise<ReadonlySet<string>> {
  const through = horizon.through;
  if (through === null) return new Set(sysIds);
  const held = new Set<string>();
  for (let i = 0; i < sysIds.length; i += KEYS_PER_REQUEST) {
    const keys = sysIds.slice(i, i + KEYS_PER_REQUEST);
    const query = [
      condition("tablename", "=", table.table),
      condition("fieldname", "=", FIELD_DELETED),
      condition("documentkey", "IN", keys),
      // The horizon's own second too: deletions in it may not all have been read.
      condition("sys_created_on", ">=", through.text),
    ].join("^");
    const limit = keys.length * 4 + 10;
    const page = await client.list(AUDIT_TABLE, {
      query,
      limit,
      fields: ["documentkey"],
      // Asked as the deletion stream reads sys_audit (auditTableSettings: in the user's domain), so the guard
      // sees the deletions that stream will read, not others.
      queryNoDomain: false,
      signal,
    });
    // A full page may have left keys out (a key deleted and restored many times since the horizon): every key
    // of the chunk then waits for the sweep, rather than one going ahead of its tombstone unseen.
    const chunkHeld = page.rows.length >= limit ? keys : page.rows.map((row) => String(row.documentkey));
    for (const key of chunkHeld) held.add(key);
  }
  return held;
}

/** Keys asked about per request (as many as the deletion stream reads current rows for; the URL stays short). */
const KEYS_PER_REQUEST = 100;
