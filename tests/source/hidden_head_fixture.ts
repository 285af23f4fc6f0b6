/**
 * A table of old rows whose head is hidden by access control, as users meet it: `rows` rows spread over two
 * years (ending months before the simulator's clock), the first `head` of them hidden from the integration user,
 * and every `every`-th of the rest hidden too (0: none).
 */
import type { Simulator } from "../../src/sim/mod.ts";

export interface HiddenHeadTable {
  /** Sys ids in cursor order. */
  readonly ordered: string[];
  readonly hidden: Set<string>;
  /** Readable sys ids in cursor order. */
  readonly readable: string[];
  /** The first row's timestamp (where the table's rows begin). */
  readonly first: string;
}

const SPAN_SECONDS = 2 * 365 * 86_400;

export function seedHiddenHead(
  sim: Simulator,
  table: string,
  { rows, head, every = 0 }: { rows: number; head: number; every?: number },
): HiddenHeadTable {
  const base = Date.parse("2024-06-01T00:00:00Z");
  const store = sim.table(table);
  const seeded: { ts: string; id: string }[] = [];
  for (let i = 0; i < rows; i++) {
    // Evenly spread, with a deterministic jitter of up to ~17 minutes.
    const second = Math.floor((i / rows) * SPAN_SECONDS) + ((i * 7919) % 1000);
    const ts = new Date(base + second * 1000).toISOString().slice(0, 19).replace("T", " ");
    const row = store.insert({ sys_updated_on: ts, sys_mod_count: "0" }, { suppressAutoSysFields: true });
    seeded.push({ ts, id: row.sys_id });
  }
  seeded.sort((a, b) => a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const ordered = seeded.map((r) => r.id);
  const hidden = new Set(ordered.filter((_, i) => i < head || (every > 0 && i % every === every - 1)));
  sim.faults.add({ table, fault: { kind: "acl_hide", sysIds: [...hidden] } });
  return { ordered, hidden, readable: ordered.filter((id) => !hidden.has(id)), first: seeded[0].ts };
}
