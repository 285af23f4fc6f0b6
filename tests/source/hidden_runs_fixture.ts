/**
 * A table laid out to test paging past rows hidden by access control: 40 rows in distinct seconds, a bucket of
 * 60 rows sharing one second, 40 more rows in distinct seconds, all in cursor order. A scenario hides a run of
 * `length` rows at the start of the table, inside the same-second bucket, and at the end.
 */
import type { Simulator } from "../../src/sim/mod.ts";

export const HIDDEN_RUNS_CLOCK = "2024-03-02 00:00:00";
const BEFORE = 40, BUCKET = 60, AFTER = 40;
/** Where the middle run starts inside the bucket. */
const BUCKET_OFFSET = 10;

function stamp(base: number, plusSeconds: number): string {
  return new Date(base + plusSeconds * 1000).toISOString().slice(0, 19).replace("T", " ");
}

export interface HiddenRunsTable {
  /** Every sys id in cursor order. */
  readonly ordered: string[];
  readonly hidden: Set<string>;
  /** The rows the integration user can read, in cursor order. */
  readonly readable: string[];
  readonly bucketSecond: string;
}

/** Inserts the rows into `table` and installs the `acl_hide` fault for runs of `length` rows. */
export function seedHiddenRuns(sim: Simulator, table: string, length: number): HiddenRunsTable {
  const base = Date.parse("2024-03-01T00:00:00Z");
  const rows = sim.table(table);
  const add = (ts: string) =>
    rows.insert({ sys_updated_on: ts, sys_mod_count: "0" }, { suppressAutoSysFields: true });
  for (let i = 0; i < BEFORE; i++) add(stamp(base, i * 7));
  const bucketSecond = stamp(base, 3600);
  for (let i = 0; i < BUCKET; i++) add(bucketSecond);
  for (let i = 0; i < AFTER; i++) add(stamp(base, 7200 + i * 7));
  // Every row of the table (some have reference data of their own), in cursor order.
  const all = rows.sysIds().map((id) => ({ ts: rows.get(id)!.sys_updated_on, id }));
  all.sort((a, b) => a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const ordered = all.map((r) => r.id);
  const middle = all.findIndex((r) => r.ts === bucketSecond) + BUCKET_OFFSET;
  const hidden = new Set([
    ...ordered.slice(0, length),
    ...ordered.slice(middle, middle + length),
    ...ordered.slice(ordered.length - length),
  ]);
  sim.faults.add({ table, fault: { kind: "acl_hide", sysIds: [...hidden] } });
  return { ordered, hidden, readable: ordered.filter((id) => !hidden.has(id)), bucketSecond };
}
