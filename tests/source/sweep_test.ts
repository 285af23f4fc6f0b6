/** The sweep's decisions on full, short and empty pages with and without counts (sweep.ts). */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { Sweep } from "../../src/source/sweep.ts";
import { KeysetQuery } from "../../src/source/keyset_query.ts";
import { highWaterMark } from "../../src/source/instance_time.ts";
import { parseGlideDateTime } from "../../src/source/glide_timestamp.ts";

const query = new KeysetQuery("", "sys_updated_on", "sys_id");
const high = highWaterMark(Date.UTC(2024, 0, 1, 1, 0, 0), 0);
const cursor = (timestamp: string, sysId: string) => ({
  timestamp,
  sysId,
  epochMs: parseGlideDateTime(timestamp),
});
const LAST = cursor("2024-01-01 00:10:00", "a".repeat(32));

Deno.test("only the first page asks for a count; the count minus full pages ends the sweep on a short page", () => {
  const sweep = new Sweep("2024-01-01 00:00:00", high);
  assertEquals(sweep.next(query).count, true);
  assert(sweep.advance({ rows: 10, limit: 10, last: LAST, total: 25 }));
  assertEquals(sweep.next(query).count, false);
  assert(
    sweep.advance({ rows: 10, limit: 10, last: cursor("2024-01-01 00:20:00", "b".repeat(32)), total: null }),
  );
  assertEquals(
    sweep.advance({ rows: 5, limit: 10, last: cursor("2024-01-01 00:30:00", "c".repeat(32)), total: null }),
    false,
  );
  assertEquals(sweep.pages, 3);
});

Deno.test("a count equal to the rows of a full page ends the sweep without the trailing empty page", () => {
  const sweep = new Sweep("2024-01-01 00:00:00", high);
  assertEquals(sweep.advance({ rows: 10, limit: 10, last: LAST, total: 10 }), false);
});

Deno.test("a short page whose count says more rows exist continues after its last row; an empty one recounts", () => {
  const sweep = new Sweep("2024-01-01 00:00:00", high);
  assert(sweep.advance({ rows: 3, limit: 10, last: LAST, total: 40 }));
  const next = sweep.next(query);
  assertEquals(next.count, false, "rows came: no count needed to go on");
  assertStringIncludes(next.query, `sys_id>${LAST.sysId}`);
  assert(sweep.advance({ rows: 0, limit: 10, last: null, total: null }), "37 counted rows may lie ahead");
  const again = sweep.next(query);
  assertEquals([again.count, again.query], [true, next.query], "the same window, with a count");
  assertEquals(
    sweep.advance({ rows: 0, limit: 10, last: null, total: 7 }),
    false,
    "7 rows, all hidden: covered",
  );
});

Deno.test("an empty page with a count above the limit cuts its window where 3/4 of a page would end; no count at all ends like before", () => {
  const sweep = new Sweep("2024-01-01 00:00:00", high);
  assert(sweep.advance({ rows: 0, limit: 10, last: null, total: 40 }));
  // 7.5 of 40 rows spread over an hour: the first 675 s.
  assertStringIncludes(sweep.next(query).query, "sys_updated_on<=2024-01-01 00:11:15");
  assertEquals(sweep.stats.splits, 1);
  // Covered with 5 rows, all hidden: the next probe is 7.5 / 5 = 1.5 times as wide (1.5 × 676 s, counting the
  // first second).
  assert(sweep.advance({ rows: 0, limit: 10, last: null, total: 5 }));
  assertStringIncludes(
    sweep.next(query).query,
    "sys_updated_on>=2024-01-01 00:11:16^sys_updated_on<=2024-01-01 00:28:09",
  );
  // Covered with readable rows among them: back to paging up to the mark.
  assert(
    sweep.advance({ rows: 2, limit: 10, last: cursor("2024-01-01 00:20:00", "c".repeat(32)), total: 6 }),
  );
  assertStringIncludes(
    sweep.next(query).query,
    "sys_updated_on>=2024-01-01 00:28:10^sys_updated_on<=2024-01-01 01:00:00",
  );
  const stripped = new Sweep("2024-01-01 00:00:00", high);
  assertEquals(
    stripped.advance({ rows: 0, limit: 10, last: null, total: null }),
    false,
    "a proxy stripped the count",
  );
});

Deno.test("a first sweep whose first page is all hidden asks where its rows begin and cuts from there", () => {
  const sweep = new Sweep("1970-01-01 00:00:00", high, [], true);
  assert(sweep.advance({ rows: 0, limit: 10, last: null, total: 40 }));
  assert(sweep.wantsEarliest);
  assertEquals(sweep.window.start, { kind: "from", timestamp: "1970-01-01 00:00:00" });
  sweep.earliest("2024-01-01 00:00:00");
  assertEquals(sweep.wantsEarliest, false);
  assertStringIncludes(
    sweep.next(query).query,
    "sys_updated_on>=2024-01-01 00:00:00^sys_updated_on<=2024-01-01 00:11:15",
  );
  const unknown = new Sweep("1970-01-01 00:00:00", high, [], true);
  unknown.advance({ rows: 0, limit: 10, last: null, total: 40 });
  unknown.earliest(null);
  assertStringIncludes(unknown.next(query).query, "sys_updated_on>=1970-01-01 00:00:00^");
  const streaming = new Sweep("2024-01-01 00:00:00", high);
  streaming.advance({ rows: 0, limit: 10, last: null, total: 40 });
  assertEquals(streaming.wantsEarliest, false, "a sweep with a cursor knows where rows are");
});

Deno.test("nextAfterFull: the request a full page leads to, without moving; null when that page ends the window", () => {
  // Pages of 10 over a count of 25, then a sweep whose count the instance leaves out, then a probe after an
  // empty page: in each state the guess equals what advance over a full page leads to, or is null when the
  // sweep would end or the window be covered.
  const cases: { pages: { rows: number; total: number | null; last: typeof LAST | null }[] }[] = [
    { pages: [{ rows: 10, total: 25, last: LAST }, { rows: 10, total: null, last: LAST }] },
    { pages: [{ rows: 10, total: null, last: LAST }, { rows: 10, total: null, last: LAST }] },
    { pages: [{ rows: 0, total: 40, last: null }, { rows: 10, total: 30, last: LAST }] },
    { pages: [{ rows: 10, total: 10, last: LAST }] },
  ];
  let guesses = 0;
  for (const { pages } of cases) {
    const sweep = new Sweep("2024-01-01 00:00:00", high);
    for (const [i, page] of pages.entries()) {
      const last = cursor(`2024-01-01 00:${String(10 + i).padStart(2, "0")}:00`, "b".repeat(32));
      const guess = sweep.nextAfterFull(query, last, 10, page.total);
      const before = sweep.next(query);
      if (page.rows < 10) {
        assert(sweep.advance({ rows: page.rows, limit: 10, last: page.last, total: page.total }));
        continue;
      }
      assertEquals(sweep.next(query), before, "nextAfterFull does not move the sweep");
      const goesOn = sweep.advance({ rows: 10, limit: 10, last, total: page.total });
      // No guess: the page ends the sweep, or proves its window covered (the next asks for a new count).
      if (guess === null) assert(!goesOn || sweep.next(query).count, JSON.stringify(page));
      else {
        assert(goesOn);
        assertEquals(guess, sweep.next(query));
        guesses++;
      }
    }
  }
  assertEquals(guesses, 5);
});
