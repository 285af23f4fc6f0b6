import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { SysIdScan, UnsplittableRangeError } from "../../src/source/sys_id_scan.ts";

/**
 * A model of the instance's table API for sys-id-ordered pages: the query's terms filter the rows, the limit
 * applies, then access control drops the hidden rows; the count (asked for) is taken before access control.
 */
function modelInstance(
  ids: readonly string[],
  hidden: ReadonlySet<string>,
  sendsCount: (request: number) => boolean = () => true,
) {
  const sorted = [...ids].sort();
  const counts: boolean[] = [];
  const page = (terms: readonly string[], limit: number, count: boolean) => {
    counts.push(count);
    const matching = sorted.filter((id) =>
      terms.every((term) => {
        const [, op, value] = /^sys_id(>=|<|>)(.*)$/.exec(term)!;
        return op === ">=" ? id >= value : op === "<" ? id < value : id > value;
      })
    );
    return {
      rows: matching.slice(0, limit).filter((id) => !hidden.has(id)),
      total: count && sendsCount(counts.length - 1) ? matching.length : null,
    };
  };
  return { page, counts };
}

function scanAll(scan: SysIdScan, page: ReturnType<typeof modelInstance>["page"], limit: number) {
  const read: string[] = [];
  for (let requests = 1;; requests++) {
    assert(requests < 10_000, "the scan does not end");
    const next = scan.next(limit);
    const { rows, total } = page(next.terms, limit, next.count);
    read.push(...rows);
    if (scan.take({ rows: rows.length, last: rows.at(-1) ?? null, total }, limit)) return { read, requests };
  }
}

/** `n` sys ids spread over the whole space, deterministic. */
function sysIds(n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) => ((BigInt(i) * (1n << 128n)) / BigInt(n) + BigInt(i * 7919)).toString(16).padStart(32, "0"),
  );
}

Deno.test("sys id scan: without hidden rows, the raw page floor and counts only near the end", () => {
  const ids = sysIds(1050);
  const { page, counts } = modelInstance(ids, new Set());
  const { read, requests } = scanAll(new SysIdScan("sys_id", null, null), page, 100);
  assertEquals(read, [...ids].sort());
  assertEquals(requests, 11, "ceil(1050 / 100) pages");
  // The first page, and the last two whose estimate says the end is near.
  assertEquals(counts.map((c, i) => c ? i : -1).filter((i) => i >= 0), [0, 9, 10]);
});

Deno.test("sys id scan: short pages cut by access control do not end it; every readable row is read", () => {
  const ids = sysIds(2000);
  const sorted = [...ids].sort();
  // Every third row hidden, and a run of 350 hidden rows (more than three pages) in the middle.
  const hidden = new Set(sorted.filter((_, i) => i % 3 === 0 || (i >= 900 && i < 1250)));
  const { page } = modelInstance(ids, hidden);
  const { read, requests } = scanAll(new SysIdScan("sys_id", null, null), page, 100);
  assertEquals(read, sorted.filter((id) => !hidden.has(id)));
  // 20 raw pages; the hidden run is probed past where its count says three quarters of a page would end.
  assert(requests <= 30, `${requests} requests for 20 raw pages`);
});

Deno.test("sys id scan: a range [lo, hi) is read to its end and no further, hidden tail included", () => {
  const ids = sysIds(3000);
  const sorted = [...ids].sort();
  const inRange = sorted.filter((id) => id >= "4" && id < "9");
  // The range's last 250 rows hidden: its end is proven by counts, not by an empty page.
  const hidden = new Set(inRange.slice(-250));
  const { page } = modelInstance(ids, hidden);
  const { read } = scanAll(new SysIdScan("sys_id", "4", "9"), page, 100);
  assertEquals(read, inRange.slice(0, -250));
});

Deno.test("sys id scan: an instance that sends no count ends at the first short page, as before", () => {
  const ids = sysIds(500);
  const sorted = [...ids].sort();
  const { page } = modelInstance(ids, new Set(), () => false);
  const scan = new SysIdScan("sys_id", null, null);
  const { read, requests } = scanAll(scan, page, 100);
  assertEquals(read, sorted);
  assertEquals(requests, 6, "five full pages and an empty one");
  assertEquals(scan.endProven, false, "nothing proves what a short page hides");
});

Deno.test("sys id scan: an instance that sends the count for some pages and not others fails the read", () => {
  const ids = sysIds(1000);
  const sorted = [...ids].sort();
  const hidden = new Set(sorted.filter((_, i) => i >= 300 && i < 600));
  // The first page's count only.
  const { page } = modelInstance(ids, hidden, (request) => request === 0);
  assertThrows(() => scanAll(new SysIdScan("sys_id", null, null), page, 100), Error, /X-Total-Count/);
});

Deno.test("sys id scan: a hidden run after a sys id that is not a GUID cannot be probed past", () => {
  const ids = Array.from({ length: 300 }, (_, i) => `inc${String(i).padStart(5, "0")}`);
  const hidden = new Set(ids.slice(50, 250));
  const { page } = modelInstance(ids, hidden);
  assertThrows(
    () => scanAll(new SysIdScan("sys_id", null, null), page, 100),
    UnsplittableRangeError,
    /32-hex/,
  );
});
