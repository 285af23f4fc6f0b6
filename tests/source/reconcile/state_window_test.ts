/** Bounded windows of a table's state entries (src/source/reconcile/state_window.ts). */
import { assert, assertEquals } from "../../support/assert.ts";
import { encodeEntry, rangeOf, stateKey } from "../../../src/source/reconcile/state_entry.ts";
import { readStateWindow, type StateWindow } from "../../../src/source/reconcile/state_window.ts";

const TABLE = "conn/topic.incident";
const MARKER = `${TABLE}|`;
type Log = [string, string | null][];
const TEST_PARTITION_OF_MARKER = 0;

const entry = (u: string) => encodeEntry({ u, m: "0", d: `d-${u}` });
const put = (
  sysId: string,
  u = "2026-01-01 00:00:00",
): [string, string | null] => [stateKey(TABLE, sysId), entry(u)];
const drop = (sysId: string): [string, string | null] => [stateKey(TABLE, sysId), null];

/** The partition an entry of the log lives in (as the state recorder writes them). */
function partitionOf(key: string): number {
  const sysId = key.slice(key.indexOf("|") + 1);
  return sysId === "" ? TEST_PARTITION_OF_MARKER : rangeOf(sysId);
}

function read(log: Log, lo: string | null, maxEntries?: number, reads: number[] = []): Promise<StateWindow> {
  return readStateWindow({
    readPartition: (partition, visit) => {
      reads.push(partition);
      for (const [k, v] of log) if (partitionOf(k) === partition) visit(k, v);
      return Promise.resolve();
    },
    tableId: TABLE,
    markerKey: MARKER,
    lo,
    maxEntries,
  });
}

/** Every window of a range from its start, as a pass reads them. */
async function windows(log: Log, maxEntries: number): Promise<StateWindow[]> {
  const out: StateWindow[] = [];
  let lo: string | null = null;
  do {
    const w = await read(log, lo, maxEntries);
    out.push(w);
    lo = w.hi;
  } while (lo !== null);
  return out;
}

Deno.test("a window holds the table's latest entries, tombstones applied, other tables and bad values ignored", async () => {
  const log: Log = [
    put("a1"),
    ["other/topic|a2", entry("x")],
    put("a3"),
    put("a1", "2026-02-02 00:00:00"),
    drop("a3"),
    [stateKey(TABLE, "a4"), "not json"],
    [MARKER, '{"seeded":true}'],
  ];
  const w = await read(log, null);
  assertEquals([...w.entries.keys()], ["a1"]);
  assertEquals(w.entries.get("a1")?.u, "2026-02-02 00:00:00");
  assertEquals(w.hi, null);
  assert(w.seeded);
  assert(!(await read(log.slice(0, 6), null)).seeded, "no marker, not seeded");
});

Deno.test("a table that fits is one window: every partition read once, in order", async () => {
  const log: Log = ["0a", "3b", "3c", "f0"].map((id) => put(id));
  const reads: number[] = [];
  const w = await read(log, null, 100, reads);
  assertEquals([...w.entries.keys()].sort(), ["0a", "3b", "3c", "f0"]);
  assertEquals(w.hi, null);
  assertEquals(reads, Array.from({ length: 16 }, (_, i) => i));
});

Deno.test("a full window ends with the range it filled; the next starts at the next range", async () => {
  const log: Log = ["00", "01", "02", "03", "50", "f0"].map((id) => put(id));
  const reads: number[] = [];
  const first = await read(log, null, 4, reads);
  assertEquals([...first.entries.keys()], ["00", "01", "02", "03"]);
  assertEquals(first.hi, "1");
  assertEquals(reads, [0]);
  const rest = await read(log, first.hi, 4);
  assertEquals([...rest.entries.keys()], ["50", "f0"]);
  assertEquals(rest.hi, null);
});

Deno.test("a table over the bound is read in windows that cover every entry once, each within the bound", async () => {
  const ids = Array.from(
    { length: 1000 },
    (_, i) => `${"0123456789abcdef"[i % 16]}${String((i * 7919) % 1000).padStart(4, "0")}`,
  );
  const log: Log = ids.map((id) => put(id));
  const all = await windows(log, 100);
  assert(all.length > 1, "cut into windows");
  const seen: string[] = [];
  for (const w of all) {
    assert(w.entries.size <= 100, `window of ${w.entries.size} entries`);
    seen.push(...w.entries.keys());
  }
  assertEquals(seen.sort(), [...ids].sort());
  for (let i = 0; i + 1 < all.length; i++) {
    for (const id of all[i].entries.keys()) assert(id < all[i].hi!, `${id} before its window's end`);
  }
});

Deno.test("after a cut, a later tombstone inside the window deletes and a later entry past it waits for its window", async () => {
  const log: Log = [put("a1"), put("a2"), put("a3"), put("a4"), put("a5"), drop("a1"), put("a9"), put("b1")];
  const all = await windows(log, 4);
  const first = all[0];
  assertEquals(first.hi, "a3");
  assertEquals([...first.entries.keys()], ["a2"]);
  const rest = all.slice(1).flatMap((w) => [...w.entries.keys()]).sort();
  assertEquals(rest, ["a3", "a4", "a5", "a9", "b1"]);
});
