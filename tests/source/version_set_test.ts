/**
 * The packed version keys (src/source/version_key.ts) and the bounded set that holds them
 * (src/source/version_set.ts): exact round trips, keys refused to the string path, hash collisions that must
 * never make one version look like another, and the set against a plain model under random operations.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { SourceRecord } from "../../src/connect/record.ts";
import { cursorToOffset } from "../../src/source/cursor.ts";
import { DedupCache } from "../../src/source/dedup_cache.ts";
import { parseGlideDateTime } from "../../src/source/glide_timestamp.ts";
import { OverlapLedger, overlapSentFromOffset } from "../../src/source/overlap_ledger.ts";
import { hashPacked, PACKED_WORDS, packVersionKey, unpackVersionKey } from "../../src/source/version_key.ts";
import { VersionSet } from "../../src/source/version_set.ts";

const ID = "0123456789abcdef0123456789abcdef";
const words = new Uint32Array(PACKED_WORDS);
const packs = (key: string) => packVersionKey(key, words, 0);

/** A deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-hex sys id from a number (distinct numbers, distinct ids). */
const sysId = (n: number) => n.toString(16).padStart(32, "0");

Deno.test("version key: a packable key unpacks to the very same string", () => {
  for (
    const key of [
      `2024-07-01 10:00:04|${ID}|0`,
      `2024-07-01 10:00:04|${ID}|`,
      `1970-01-01 00:00:00|${"0".repeat(32)}|999999999`,
      `2106-02-07 06:28:15|${"f".repeat(32)}|17`,
      `2024-02-29 23:59:59|${"8".repeat(32)}|123`,
    ]
  ) {
    assert(packs(key), key);
    assertEquals(unpackVersionKey(words, 0), key);
  }
});

Deno.test("version key: any key that would not come back exactly is refused", () => {
  for (
    const key of [
      `2024-07-01 10:00:04|${ID.toUpperCase()}|0`, // upper case would come back lower case
      `2024-07-01 10:00:04|${ID.slice(1)}|0`, // 31 characters
      `2024-07-01 10:00:04|${ID}0|0`, // 33 characters
      `2024-07-01 10:00:04|${ID.slice(1)}g|0`, // not hex
      `2024-07-01 10:00:04|${ID}|01`, // a leading zero
      `2024-07-01 10:00:04|${ID}|1234567890`, // ten digits
      `2024-07-01 10:00:04|${ID}|-1`,
      `2024-07-01 10:00:04|${ID}|1,234`,
      `1969-12-31 23:59:59|${ID}|0`, // before 1970
      `0070-01-01 00:00:00|${ID}|0`, // Date.UTC would read 1970
      `2106-02-07 06:28:16|${ID}|0`, // past 32-bit seconds
      `2024-02-30 00:00:00|${ID}|0`, // no such day
      `2024-07-01T10:00:04|${ID}|0`,
      `2024-07-01 10:00:04.5|${ID}|0`,
      "2024-07-01 10:00:04|a|0",
      "",
    ]
  ) {
    assert(!packs(key), key);
  }
});

Deno.test("version set: keys whose full hashes collide stay apart", () => {
  // The hash mixes sys id word 1 with the mod count by XOR: flipping the same bit in both keeps the hash.
  const a = `2024-07-01 10:00:04|${ID}|0`;
  const b = `2024-07-01 10:00:04|${ID.slice(0, 15)}e${ID.slice(16)}|1`;
  assert(packs(a));
  const hashA = hashPacked(words, 0);
  assert(packs(b));
  assertEquals(hashPacked(words, 0), hashA, "a full 32-bit collision");
  const set = new VersionSet(10);
  set.add(a);
  assertEquals([set.has(a), set.has(b)], [true, false], `${a} vs ${b}`);
  assert(set.add(b), "the other version is new");
  assertEquals(set.size, 2);
  set.delete(a);
  assertEquals([set.has(a), set.has(b)], [false, true]);
});

Deno.test("version set: a packable key kept as a string (with a detail) is one key, not two", () => {
  const set = new VersionSet<string>(5);
  const key = `2024-07-01 10:00:04|${ID}|3`;
  assert(set.add(key, "detail"));
  assert(!set.add(key), "held already");
  assert(set.has(key));
  const seen: [string, string | undefined][] = [];
  set.add(`2024-07-01 10:00:05|${ID}|3`);
  set.add("2024-07-01 10:00:06|x|3");
  set.forEach((k, d) => seen.push([k, d]));
  assertEquals(seen, [
    [key, "detail"],
    [`2024-07-01 10:00:05|${ID}|3`, undefined],
    ["2024-07-01 10:00:06|x|3", undefined],
  ]);
  assert(set.delete(key));
  assertEquals([set.has(key), set.size], [false, 2]);
});

Deno.test("version set: matches a plain ordered model under random adds, deletes and evictions", () => {
  for (const capacity of [1, 2, 7, 50, 300]) {
    const next = random(capacity);
    // A pool larger than the capacity: packable keys (close sys ids, so hash slots collide often) and string ones.
    const pool = Array.from(
      { length: capacity * 4 + 3 },
      (_, i) =>
        i % 5 === 4
          ? `2024-07-01 10:00:0${i % 10}|id${i}|${i % 3}`
          : `2024-07-01 10:00:0${i % 10}|${sysId(i * 7)}|${i % 3 === 0 ? "" : i % 3}`,
    );
    const set = new VersionSet<number>(capacity);
    let model: { key: string; detail: number | undefined }[] = [];
    for (let step = 0; step < 4000; step++) {
      const key = pool[Math.floor(next() * pool.length)];
      const op = next();
      if (op < 0.6) {
        const detail = op < 0.1 ? step : undefined;
        const fresh = !model.some((e) => e.key === key);
        assertEquals(set.add(key, detail), fresh, `add ${key} at step ${step}`);
        if (fresh) {
          model.push({ key, detail });
          if (model.length > capacity) model.shift();
        }
      } else if (op < 0.8) {
        assertEquals(set.delete(key), model.some((e) => e.key === key), `delete ${key} at step ${step}`);
        model = model.filter((e) => e.key !== key);
      } else {
        assertEquals(set.has(key), model.some((e) => e.key === key), `has ${key} at step ${step}`);
      }
      assertEquals(set.size, model.length);
    }
    const held: { key: string; detail: number | undefined }[] = [];
    set.forEach((key, detail) => held.push({ key, detail }));
    assertEquals(held, model, `capacity ${capacity}`);
    for (const key of pool) assertEquals(set.has(key), model.some((e) => e.key === key), key);
  }
});

Deno.test("dedup cache: real-shaped versions, packed, bounded like any others", () => {
  const cache = new DedupCache(1000);
  const key = (i: number) => DedupCache.versionKey("2024-07-01 10:00:04", sysId(i), String(i % 4));
  for (let i = 0; i < 3000; i++) cache.add(key(i));
  assertEquals(cache.size, 1000);
  assertEquals([cache.has(key(1999)), cache.has(key(2000)), cache.has(key(2999))], [false, true, true]);
  assert(!cache.has(DedupCache.versionKey("2024-07-01 10:00:04", sysId(2000), "5")), "another mod count");
});

Deno.test("overlap ledger: real-shaped versions come back exactly, a cursor not spelled in its version is kept", () => {
  const ledger = new OverlapLedger(10, 100);
  const at = (timestamp: string, id: string) => ({
    timestamp,
    sysId: id,
    epochMs: parseGlideDateTime(timestamp),
  });
  const ack = (version: string, cursor: ReturnType<typeof at>) => {
    const r = new SourceRecord({ topic: "t", value: null });
    ledger.built(r, version, cursor);
    ledger.whenAcknowledged(r)?.();
  };
  const packed = DedupCache.versionKey("2024-07-01 10:00:03", sysId(1), "2");
  ack(packed, at("2024-07-01 10:00:03", sysId(1)));
  // A version whose key says 10:00:09 for a row at 10:00:04: the row's cursor decides, not the key's text.
  const odd = DedupCache.versionKey("2024-07-01 10:00:09", sysId(2), "0");
  ack(odd, at("2024-07-01 10:00:04", sysId(2)));
  ack(DedupCache.versionKey("2024-07-01 10:00:05", sysId(3), ""), at("2024-07-01 10:00:05", sysId(3)));
  ack(DedupCache.versionKey("2024-07-01 10:00:02", sysId(4), ""), at("2024-07-01 09:59:50", sysId(4)));
  const final = ledger.finalOffset(cursorToOffset(at("2024-07-01 10:00:04", sysId(9))));
  // After the cursor too: a row sent ahead of it (a hot row) is read again by the next run.
  const ahead = DedupCache.versionKey("2024-07-01 10:00:05", sysId(3), "");
  assertEquals(overlapSentFromOffset(final), [packed, odd, ahead]);
});
