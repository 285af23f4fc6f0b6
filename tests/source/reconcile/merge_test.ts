/** The merge of a sys id range (src/source/reconcile/merge.ts) and the ranges of the state (state_entry.ts). */
import { assertEquals } from "../../support/assert.ts";
import {
  type ComparedRow,
  compareVersions,
  deletedIn,
  mergeRows,
} from "../../../src/source/reconcile/merge.ts";
import { DIGEST_PREFIX } from "../../../src/source/reconcile/digest.ts";
import {
  decodeEntry,
  encodeEntry,
  rangeAt,
  rangeOf,
  type StateEntry,
  stateKey,
  sysIdOfKey,
} from "../../../src/source/reconcile/state_entry.ts";

// Digests as this version makes them (digest.ts); `legacy` for an entry an earlier version wrote.
const row = (sysId: string, u: string, m: string, d: string, streamOwns = false): ComparedRow => ({
  sysId,
  updatedOn: u,
  modCount: m,
  digest: DIGEST_PREFIX + d,
  streamOwns,
});
const entry = (u: string, m: string, d: string, legacy = false): StateEntry => ({
  u,
  m,
  d: legacy ? d : DIGEST_PREFIX + d,
});

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
  const state = new Map(rows.map((r) => [r.sysId, { u: r.updatedOn, m: r.modCount, d: r.digest }]));
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

Deno.test("merge: an entry an earlier version wrote is refreshed at the row's version, repaired by version otherwise", () => {
  const state = new Map([
    ["e1", entry("2024-01-01 00:00:00", "1", "0123456789abcdef", true)],
    ["e2", entry("2024-01-01 00:00:00", "1", "0123456789abcdef", true)],
    ["e3", entry("2024-01-01 00:00:00", "4", "0123456789abcdef", true)],
  ]);
  const stale: string[] = [];
  const repairs = mergeRows(
    [
      row("e1", "2024-01-01 00:00:00", "1", "now"), // same version: refreshed, not a silent update
      row("e2", "2024-01-01 00:00:09", "2", "now"), // newer: sent as missing, as with any entry behind
      row("e3", "2024-01-01 00:00:00", "3", "now"), // older: rolled back
    ],
    state,
    (id) => stale.push(id),
  );
  assertEquals(stale, ["e1"]);
  assertEquals(repairs, [{ kind: "missing", sysId: "e2" }, { kind: "rolled-back", sysId: "e3" }]);
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
