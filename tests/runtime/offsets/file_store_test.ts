import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "../../support/assert.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { FileOffsetStore } from "../../../src/runtime/offsets/file_store.ts";
import { CorruptOffsetsError } from "../../../src/runtime/offsets/file_format.ts";
import { InvalidOffsetError } from "../../../src/runtime/offsets/validation.ts";

setLogLevel("error");

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "offsets-file-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function open(path: string, flushDelayMs = 60_000): Promise<FileOffsetStore> {
  const store = new FileOffsetStore({ path, flushDelayMs });
  await store.start();
  return store;
}

Deno.test("file store: a missing file starts empty and is created at once", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    const store = await open(path);
    assertEquals(store.getAll("jira"), []);
    assertEquals(store.get("jira", { table: "incident" }), undefined);
    const doc = JSON.parse(await Deno.readTextFile(path));
    assertEquals(doc, { format: "tablesync.source-offsets", version: 1, rows: [] });
    await store.close();
  }));

Deno.test("file store: offsets round-trip through the file, per connector", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    const store = await open(path);
    store.set("jira", [
      { partition: { table: "incident" }, offset: { ts: "2024-10-01 12:00:00", id: "a1", n: 3, last: true } },
      { partition: { table: "problem", shard: 2 }, offset: { ts: null } },
    ]);
    store.set("other", [{ partition: { table: "incident" }, offset: { ts: "x" } }]);
    await store.flush();
    await store.close();

    const reopened = await open(path);
    assertEquals(reopened.get("jira", { table: "incident" }), {
      ts: "2024-10-01 12:00:00",
      id: "a1",
      n: 3,
      last: true,
    });
    assertEquals(reopened.get("jira", { shard: 2, table: "problem" }), { ts: null });
    assertEquals(reopened.get("other", { table: "incident" }), { ts: "x" });
    assertEquals(reopened.getAll("jira").length, 2);
    assertEquals(reopened.getAll("other"), [{ partition: { table: "incident" }, offset: { ts: "x" } }]);
    await reopened.close();
  }));

Deno.test("file store: rows hold Connect's key and value JSON byte for byte", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    const store = await open(path);
    store.set("jira", [{ partition: { table: "incident" }, offset: { position: 30 } }]);
    await store.close(); // close flushes
    const text = await Deno.readTextFile(path);
    assertMatch(text, /^ {4}\{"key":\["jira",\{"table":"incident"\}\],"value":\{"position":30\}\}$/m);
    const row = JSON.parse(text).rows[0];
    assertEquals(JSON.stringify(row.key), `["jira",{"table":"incident"}]`);
    assertEquals(JSON.stringify(row.value), `{"position":30}`);
  }));

Deno.test("file store: a tombstone deletes the offset, in memory and in the file", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    const store = await open(path);
    store.set("jira", [
      { partition: { table: "incident" }, offset: { n: 1 } },
      { partition: { table: "problem" }, offset: { n: 2 } },
    ]);
    await store.flush();
    store.set("jira", [{ partition: { table: "incident" }, offset: null }, {
      partition: { table: "nope" },
      offset: null,
    }]);
    assertEquals(store.get("jira", { table: "incident" }), undefined);
    await store.close();

    const reopened = await open(path);
    assertEquals(reopened.getAll("jira"), [{ partition: { table: "problem" }, offset: { n: 2 } }]);
    reopened.set("jira", [{ partition: { table: "problem" }, offset: null }]);
    await reopened.close();
    assertEquals(JSON.parse(await Deno.readTextFile(path)).rows, []);
  }));

Deno.test("file store: keys written by others match canonically (field order, whitespace, number spelling)", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    await Deno.writeTextFile(
      path,
      `{ "format": "tablesync.source-offsets", "version": 1, "rows": [
         { "value": { "ts": "old" }, "key": [ "jira" , { "shard": 2.0, "table": "incident" } ] },
         { "key": ["jira", {"table": "other", "shard": 1}], "value": {"ts": "other"} }
       ] }`,
    );
    const store = await open(path);
    assertEquals(store.get("jira", { table: "incident", shard: 2 }), { ts: "old" });
    store.set("jira", [{ partition: { table: "incident", shard: 2 }, offset: { ts: "new" } }]);
    assertEquals(store.getAll("jira").length, 2, "the new offset replaces the old row, it does not add one");
    await store.close();

    const reopened = await open(path);
    assertEquals(reopened.get("jira", { shard: 2, table: "incident" }), { ts: "new" });
    assertEquals(reopened.getAll("jira").length, 2);
    await reopened.close();
  }));

Deno.test("file store: repeated keys in the file load with the last row winning", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        format: "tablesync.source-offsets",
        version: 1,
        rows: [
          { key: ["jira", { a: 1, b: 2 }], value: { n: 1 } },
          { key: ["jira", { b: 2, a: 1 }], value: { n: 2 } },
        ],
      }),
    );
    const store = await open(path);
    assertEquals(store.getAll("jira"), [{ partition: { a: 1, b: 2 }, offset: { n: 2 } }]);
    await store.close();
  }));

const CORRUPTIONS: Array<[string, string | Uint8Array, RegExp]> = [
  ["an empty file", "", /it is empty/],
  ["a whitespace-only file", "  \n", /it is empty/],
  [
    "a truncated file",
    `{"format":"tablesync.source-offsets","version":1,"rows":[{"key":["a",{}],"va`,
    /not valid JSON/,
  ],
  ["bytes that are not UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /not valid UTF-8/],
  ["a JSON list at the top level", "[]", /top level is not a JSON object/],
  ["another format", `{"format":"something","version":1,"rows":[]}`, /"format" is "something"/],
  [
    "a Java serialised map",
    new Uint8Array([0xac, 0xed, 0x00, 0x05, 0x73, 0x72]),
    /not valid UTF-8|not valid JSON/,
  ],
  ["an unknown version", `{"format":"tablesync.source-offsets","version":2,"rows":[]}`, /"version" is 2/],
  [
    "rows that are not a list",
    `{"format":"tablesync.source-offsets","version":1,"rows":{}}`,
    /"rows" is not a JSON list/,
  ],
  ["a row that is not an object", rowsFile(["x"]), /row 0 of "rows" is not a JSON object/],
  ["a row without a value", rowsFile([{ key: ["a", {}] }]), /row 0 of "rows" lacks "key" or "value"/],
  ["a key with three elements", rowsFile([{ key: ["a", {}, 1], value: {} }]), /expected 2 elements, got 3/],
  [
    "a key whose connector is not a string",
    rowsFile([{ key: [1, {}], value: {} }]),
    /first element, got a number/,
  ],
  [
    "a key whose partition is a list",
    rowsFile([{ key: ["a", []], value: {} }]),
    /second element, got a list/,
  ],
  [
    "a partition with a nested object",
    rowsFile([{ key: ["a", { t: { x: 1 } }], value: {} }]),
    /row 0 of "rows": The source partition of connector "a" .* field "t" contains a value of type object/,
  ],
  [
    "an offset with a nested list",
    rowsFile([{ key: ["a", {}], value: {} }, { key: ["a", { t: 1 }], value: { ids: [1] } }]),
    /row 1 of "rows": The source offset of connector "a" .* field "ids" contains an array/,
  ],
  [
    "a null offset",
    rowsFile([{ key: ["a", {}], value: null }]),
    /source offset of connector "a" must be a JSON object, got null/,
  ],
];

function rowsFile(rows: unknown[]): string {
  return JSON.stringify({ format: "tablesync.source-offsets", version: 1, rows });
}

for (const [kind, content, problem] of CORRUPTIONS) {
  Deno.test(`file store: ${kind} stops start() with a clear error and is left untouched`, () =>
    withDir(async (dir) => {
      const path = `${dir}/offsets.json`;
      const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
      await Deno.writeFile(path, bytes);
      const store = new FileOffsetStore({ path });
      const error = await store.start().then(() => null, (e) => e);
      assert(error instanceof CorruptOffsetsError, `expected CorruptOffsetsError, got ${error}`);
      assertEquals(error.path, path);
      assertMatch(error.message, problem);
      assert(error.message.includes(path), "the message names the file");
      assertMatch(error.message, /does not start over/);
      assertEquals(await Deno.readFile(path), bytes, "the corrupt file must be kept for inspection");
      assertThrows(() => store.getAll("a"), Error, /not started/);
      await store.close();
    }));
}

Deno.test("file store: an unreadable path (a directory) stops start() naming the file", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    await Deno.mkdir(path);
    await assertRejects(() => new FileOffsetStore({ path }).start(), Error, path);
  }));

Deno.test("file store: a missing directory is created; a file in the way stops start()", () =>
  withDir(async (dir) => {
    const store = await open(`${dir}/data/offsets/offsets.json`);
    store.set("jira", [{ partition: {}, offset: { n: 1 } }]);
    await store.close();
    assertEquals(JSON.parse(await Deno.readTextFile(`${dir}/data/offsets/offsets.json`)).rows.length, 1);

    await Deno.writeTextFile(`${dir}/plain`, "");
    await assertRejects(
      () => new FileOffsetStore({ path: `${dir}/plain/offsets.json` }).start(),
      Error,
      /plain is not a directory/,
    );
  }));

Deno.test("file store: temp files left by a crash are ignored and removed; other files are kept", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    await Deno.writeTextFile(path, rowsFile([{ key: ["jira", { t: "a" }], value: { n: 1 } }]));
    await Deno.writeTextFile(`${path}.tmp-4242-deadbeef`, `{"format":"tablesync.source-off`);
    await Deno.writeTextFile(`${dir}/other.json.tmp-1-2`, "not ours");
    const store = await open(path);
    assertEquals(store.get("jira", { t: "a" }), { n: 1 });
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assertEquals(names.sort(), ["offsets.json", "other.json.tmp-1-2"]);
    await store.close();
  }));

Deno.test("file store: an invalid entry is refused whole, naming the field, and nothing is applied", () =>
  withDir(async (dir) => {
    const store = await open(`${dir}/offsets.json`);
    assertThrows(
      () =>
        store.set("jira", [
          { partition: { table: "incident" }, offset: { n: 1 } },
          { partition: { table: "problem" }, offset: { n: 1, when: new Date() as never } },
        ]),
      InvalidOffsetError,
      /field "when" contains a value of type object/,
    );
    assertThrows(
      () => store.set("jira", [{ partition: { n: NaN }, offset: { n: 1 } }]),
      Error,
      /source partition .* field "n" contains the non-finite number NaN/,
    );
    assertThrows(
      () => store.set("jira", [{ partition: null as never, offset: { n: 1 } }]),
      InvalidOffsetError,
    );
    assertThrows(() => store.set("", [{ partition: {}, offset: { n: 1 } }]), Error, /connector name/);
    assertEquals(store.getAll("jira"), []);
    await store.close();
  }));

Deno.test("file store: stored offsets are copies, safe from the caller's mutations", () =>
  withDir(async (dir) => {
    const store = await open(`${dir}/offsets.json`);
    const partition: Record<string, string> = { table: "incident" };
    const offset: Record<string, number> = { n: 1 };
    store.set("jira", [{ partition, offset }]);
    partition.table = "changed";
    offset.n = 2;
    assertEquals(store.get("jira", { table: "incident" }), { n: 1 });
    const got = store.get("jira", { table: "incident" }) as Record<string, number>;
    assertThrows(() => {
      got.n = 3;
    }, TypeError);
    await store.close();
  }));

Deno.test("file store: concurrent flushes all resolve and the file ends with the last values", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    const store = await open(path);
    const flushes: Promise<void>[] = [];
    for (let i = 1; i <= 200; i++) {
      store.set("jira", [{ partition: { p: i % 7 }, offset: { n: i } }]);
      flushes.push(store.flush());
      if (i % 50 === 0) await flushes[flushes.length - 1];
    }
    await Promise.all(flushes);
    const expected = new Map<number, number>();
    for (let i = 1; i <= 200; i++) expected.set(i % 7, i);
    const rows = JSON.parse(await Deno.readTextFile(path)).rows as Array<
      { key: [string, { p: number }]; value: { n: number } }
    >;
    assertEquals(new Map(rows.map((r) => [r.key[1].p, r.value.n])), expected);
    await store.close();
  }));

Deno.test("file store: a set() is written in the background without flush()", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    const store = await open(path, 5);
    store.set("jira", [{ partition: { t: "a" }, offset: { n: 1 } }]);
    for (let attempt = 0; attempt < 500; attempt++) {
      const rows = JSON.parse(await Deno.readTextFile(path)).rows;
      if (rows.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertEquals(JSON.parse(await Deno.readTextFile(path)).rows, [{
      key: ["jira", { t: "a" }],
      value: { n: 1 },
    }]);
    await store.close();
  }));

Deno.test("file store: a failed write rejects flush(), leaves no temp file, and the next flush retries", () =>
  withDir(async (dir) => {
    const path = `${dir}/offsets.json`;
    const store = await open(path);
    store.set("jira", [{ partition: { t: "a" }, offset: { n: 1 } }]);
    // A non-empty directory where the file should be: the rename fails, even for root.
    await Deno.remove(path);
    await Deno.mkdir(path);
    await Deno.writeTextFile(`${path}/blocker`, "");
    await assertRejects(() => store.flush());
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assertEquals(names, ["offsets.json"], "the failed write must remove its temp file");

    await Deno.remove(path, { recursive: true });
    await store.flush();
    assertEquals(JSON.parse(await Deno.readTextFile(path)).rows, [{
      key: ["jira", { t: "a" }],
      value: { n: 1 },
    }]);
    await store.close();
  }));

Deno.test("file store: use before start() or after close() is refused", () =>
  withDir(async (dir) => {
    const store = new FileOffsetStore({ path: `${dir}/offsets.json` });
    assertThrows(() => store.get("a", {}), Error, /not started/);
    await store.start();
    await assertRejects(() => store.start(), Error, /already started/);
    await store.close();
    assertThrows(() => store.set("a", []), Error, /closed/);
    await store.close(); // idempotent
  }));
