/** Slicing a `{"result":[…]}` body: the same rows as JSON.parse, in slices, whatever the rows' strings hold. */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { BrokenResultError, resultEnd, resultSlices } from "../../src/instance/result_slices.ts";
import { verbatimJson } from "../../src/common/verbatim_json.ts";

const encode = (text: string) => new TextEncoder().encode(text);

function sliced(body: string, sliceBytes: number): Record<string, unknown>[][] {
  const slices = resultSlices(encode(body), sliceBytes);
  assert(slices !== null, "the body should be sliced");
  return [...slices];
}

/** Rows whose strings hold what a cut must not fall into: `},{`, brackets, quotes, escapes, non-ASCII text. */
function trickyRows(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    sys_id: `id${i}`,
    description: i % 3 === 0 ? `a},{"x":1},{b ${"é😀".repeat(i % 5)}` : `row ${i} "quoted" \\ end}`,
    assigned_to: { link: `https://x/${i}`, value: `u${i}` },
    work_notes: i % 4 === 0 ? "[{},{}]" : "",
    nested: i % 7 === 0 ? [{ a: 1 }, { b: [{ c: "},{" }] }] : null,
  }));
}

Deno.test("slices hold every row in order, each slice about the size asked for", () => {
  const rows = trickyRows(200);
  const body = JSON.stringify({ result: rows });
  for (const size of [1, 50, 300, 2000, body.length * 2]) {
    const slices = sliced(body, size);
    assertEquals(slices.flat(), rows, `slices of ${size} bytes`);
    if (size === 300) assert(slices.length > 10, `${slices.length} slices of ~300 bytes`);
    if (size === body.length * 2) assertEquals(slices.length, 1);
  }
});

Deno.test("whitespace around the envelope and between rows is allowed", () => {
  const rows = trickyRows(30);
  const pretty = JSON.stringify({ result: rows }, null, 2);
  assertEquals(sliced(pretty, 100).flat(), rows);
  assertEquals(sliced(` \n{ "result" : [ ] } \n`, 10), []);
  assertEquals(sliced(`{"result":[]}`, 10), []);
});

Deno.test("a body of another shape is not sliced (the caller parses it whole)", () => {
  for (
    const body of [
      `{"error":{"message":"x"},"status":"failure"}`,
      `{"result":{"sys_id":"a"}}`,
      `{"result":[{"sys_id":"a"}],"more":1}`,
      `{"result":[{"sys_id":"a"},{"sys_id":"b"}{"error":{"message":"Transaction cancelled"}}`,
      `{"result":[{"sys_id":"a"},{"sys_id":"b"`,
      `{"results":[]}`,
      ``,
    ]
  ) {
    assertEquals(resultSlices(encode(body), 10), null, body);
  }
});

Deno.test("a body broken between its envelope's ends fails when the broken slice is reached", () => {
  const body = `{"result":[{"sys_id":"a"},{"sys_id":"b"},{"sys_id":"c"}{"sys_id":"d"}]}`;
  const slices = resultSlices(encode(body), 1)![Symbol.iterator]();
  assertEquals(slices.next().value, [{ sys_id: "a" }]);
  assertEquals(slices.next().value, [{ sys_id: "b" }]);
  assertThrows(() => slices.next(), BrokenResultError);
});

Deno.test("resultEnd: the last row and a bound on the rows, from the body's end, whatever the rows' strings hold", () => {
  for (const n of [1, 2, 3, 7, 31]) {
    const rows = trickyRows(n);
    for (const body of [JSON.stringify({ result: rows }), JSON.stringify({ result: rows }, null, 2)]) {
      const end = resultEnd(encode(body));
      assert(end !== null);
      assertEquals(end.last, rows[n - 1], `${n} rows`);
      assert(end.rowsAtMost >= n, `${end.rowsAtMost} >= ${n}`);
    }
  }
  // Rows whose strings hold nothing like a row boundary: the bound is exact.
  const plain = Array.from({ length: 40 }, (_, i) => ({ sys_id: `id${i}`, n: `${i}` }));
  assertEquals(resultEnd(encode(JSON.stringify({ result: plain }))), { rowsAtMost: 40, last: plain[39] });
  assertEquals(resultEnd(encode(`{"result":[]}`)), { rowsAtMost: 0, last: null });
  assertEquals(resultEnd(encode(`{"error":{"message":"x"}}`)), null);
});

Deno.test("rows of ASCII slices without a backslash carry their bytes; any bytes carried are JSON.stringify's", () => {
  const plain = Array.from({ length: 120 }, (_, i) => ({
    sys_id: `id${i}`,
    short_description: `row ${i}: disk {full}, [again]`,
    priority: { display_value: "2 - High", value: "2" },
    active: i % 2 === 0,
  }));
  for (const size of [1, 500, 5000, 1_000_000]) {
    const slices = sliced(JSON.stringify({ result: plain }), size);
    for (const row of slices.flat()) {
      const bytes = verbatimJson(row);
      assert(bytes !== undefined, `slices of ${size}: row ${row.sys_id} has its bytes`);
      assertEquals(new TextDecoder().decode(bytes), JSON.stringify(row));
    }
  }
  // Cuts inside strings, escapes, non-ASCII text and whitespace: bytes only where they are exactly right.
  const tricky = trickyRows(200);
  for (const body of [JSON.stringify({ result: tricky }), JSON.stringify({ result: plain }, null, 1)]) {
    for (const size of [1, 300, 5000]) {
      for (const row of sliced(body, size).flat()) {
        const bytes = verbatimJson(row);
        if (bytes !== undefined) assertEquals(new TextDecoder().decode(bytes), JSON.stringify(row));
      }
    }
  }
  const accented = plain.map((row, i) => ({
    ...row,
    caller: i % 10 === 0 ? "Zoë – 東京 ☃" : "Ann",
    n: "a\nb",
  }));
  for (const row of sliced(JSON.stringify({ result: accented }), 5000).flat()) {
    const bytes = verbatimJson(row);
    assert(bytes !== undefined, `non-ASCII slices: row ${row.sys_id} has its bytes`);
    assertEquals(new TextDecoder().decode(bytes), JSON.stringify(row));
  }
  const broken = encode(JSON.stringify({ result: plain.slice(0, 3) }).replace("row 1:", "row \u00ff:"));
  broken[broken.indexOf(0xc3) + 1] = 0x41; // a malformed sequence: the decoder replaces it
  const brokenRows = [...resultSlices(broken, 1_000_000)!].flat();
  assert(
    brokenRows.every((row) => verbatimJson(row) === undefined),
    "malformed UTF-8 in the slice: no row's bytes",
  );
  const mixed = [...plain.slice(0, 10), { sys_id: "x", note: 'a},{"b":"c' }, ...plain.slice(10, 20)];
  const rows = sliced(JSON.stringify({ result: mixed }), 1_000_000).flat();
  assert(rows.every((row) => verbatimJson(row) === undefined), "a false cut in the slice: no row's bytes");
});
