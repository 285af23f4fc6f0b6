/** The merge of a sys id range (src/source/reconcile/merge.ts) and the ranges of the state (state_entry.ts). */
import { assertEquals } from "../../support/assert.ts";
import {
  type ComparedRow,
  compareVersions,
  deletedIn,
  mergeRows,
} from "../../../src/source/reconcile/merge.ts";
import {
  decodeEntry,
  encodeEntry,
  rangeAt,
  rangeOf,
  type StateEntry,
  stateKey,
  sysIdOfKey,
} from "../../../src/source/reconcile/state_entry.ts";

const row = (sysId: string, u: string, m: string, d: string, streamOwns = false): ComparedRow => ({
  sysId,
  updatedOn: u,
  modCount: m,
  digest: d,
  streamOwns,
});
const entry = (u: string, m: string, d: string): StateEntry => ({ u, m, d });

Deno.test("merge: equal rows need nothing; each kind of drift is named once", () => {
  const state = new Map<string, StateEntry>([
    ["a1", entry("2024-01-01 00:00:00", "1", "d1")],
    ["a2", entry("2024-01-01 00:00:00", "1", "d2")],
    ["a3", entry("2024-02-01 00:00:00", "3", "d3")],
    ["a5", entry("2024-01-01 00:00:00", "1", "d5")],
    ["a6", entry("2024-01-01 00:00:00", "1", "d6")],
  ]);
  const repairs = mergeRows([
    row("a1", "2024-01-01 00:00:00", "1", "d1"), // equal
    row("a2", "2024-01-01 00:00:00", "1", "changed"), // silent update
    row("a3", "2024-01-01 00:00:00", "2", "older"), // rolled back
    row("a4", "2020-01-01 00:00:00", "0", "d4"), // missing (old-dated insert)
    row("a6", "2024-03-01 00:00:00", "2", "newer", true), // the stream's
    row("a7", "2024-03-01 00:00:00", "0", "new", true), // the stream's, no entry yet
  ], state);
  assertEquals(repairs, [
    { kind: "silent-update", sysId: "a2" },
    { kind: "rolled-back", sysId: "a3" },
    { kind: "missing", sysId: "a4" },
  ]);
  assertEquals(deletedIn(state), [{ kind: "deleted", sysId: "a5" }]);
});

Deno.test("merge: an unchanged range gives no repair", () => {
  const rows = Array.from({ length: 50 }, (_, i) => row(`b${i}`, "2024-01-01 00:00:00", String(i), `d${i}`));
  const state = new Map(rows.map((r) => [r.sysId, entry(r.updatedOn, r.modCount, r.digest)]));
  assertEquals(mergeRows(rows, state), []);
  assertEquals(deletedIn(state), []);
});

Deno.test("merge: a row whose entry is behind it (its state not written) is sent again as missing", () => {
  const state = new Map([["c1", entry("2024-01-01 00:00:00", "1", "old")]]);
  assertEquals(mergeRows([row("c1", "2024-01-01 00:00:05", "2", "new")], state), [{
    kind: "missing",
    sysId: "c1",
  }]);
});

Deno.test("versions order by time, then by mod count as a number", () => {
  assertEquals(compareVersions("2024-01-01 00:00:00", "10", "2024-01-01 00:00:00", "9"), 1);
  assertEquals(compareVersions("2024-01-01 00:00:00", "9", "2024-01-02 00:00:00", "0"), -1);
  assertEquals(compareVersions("2024-01-01 00:00:00", "", "2024-01-01 00:00:00", ""), 0);
});

Deno.test("ranges: every sys id falls in the range whose bounds hold it, as the instance orders text", () => {
  const ids = ["0000", "0fff", "1a", "9zz", "A1", "a0", "b7", "ef", "f0", "ffff", "z", ""];
  for (const id of ids) {
    const r = rangeAt(rangeOf(id));
    assertEquals((r.lo === null || id >= r.lo) && (r.hi === null || id < r.hi), true, id);
  }
  assertEquals([rangeOf("0abc"), rangeOf("7abc"), rangeOf("fabc")], [0, 7, 15]);
});

Deno.test("state entries: keys name their table; values round-trip; foreign values are ignored", () => {
  const key = stateKey("c/topic", "abc");
  assertEquals(sysIdOfKey("c/topic", key), "abc");
  assertEquals(sysIdOfKey("c/top", key), null);
  assertEquals(sysIdOfKey("c/topic2", key), null);
  const e = entry("2024-01-01 00:00:00", "4", "0123456789abcdef");
  assertEquals(decodeEntry(encodeEntry(e)), e);
  assertEquals(decodeEntry("not json"), null);
  assertEquals(decodeEntry('{"u":1}'), null);
});
