/** Pure parts: timestamps, cursor offsets, partition identity, keyset query text, dedup cache, schema growth. */
import { modCountFieldOf } from "../../src/source/settings.ts";
import { assert, assertEquals, assertNotEquals } from "../support/assert.ts";
import { parseGlideDateTime } from "../../src/source/glide_timestamp.ts";
import { compareCursors, cursorFromOffset, cursorToOffset, overlapStart } from "../../src/source/cursor.ts";
import { sourcePartition } from "../../src/source/partition.ts";
import { KeysetQuery } from "../../src/source/keyset_query.ts";
import { DedupCache } from "../../src/source/dedup_cache.ts";
import { highWaterMark } from "../../src/source/instance_time.ts";
import { createValueBuilder } from "../../src/source/schema_modes/mod.ts";
import { Struct } from "../../src/connect/struct.ts";
import { TestContext } from "./support.ts";

Deno.test("glide date-time: strict yyyy-MM-dd HH:mm:ss in UTC", () => {
  assertEquals(parseGlideDateTime("2024-02-29 23:59:59"), Date.UTC(2024, 1, 29, 23, 59, 59));
  for (
    const bad of [
      "2024-02-30 00:00:00",
      "2024-02-29T23:59:59",
      "2024-2-29 23:59:59",
      "",
      "2024-02-29 23:60:00",
    ]
  ) {
    assert(Number.isNaN(parseGlideDateTime(bad)), bad);
  }
});

Deno.test("cursor: offsets round-trip, order is (time, sys id), overlap start and high-water mark", () => {
  const c = cursorFromOffset({ timestamp: "2024-01-01 00:00:10", sys_id: "b" })!;
  assertEquals(cursorToOffset(c), { timestamp: "2024-01-01 00:00:10", sys_id: "b" });
  assertEquals(cursorFromOffset({ timestamp: "garbage", sys_id: "b" }), null);
  assertEquals(cursorFromOffset(null), null);
  const d = cursorFromOffset({ timestamp: "2024-01-01 00:00:10", sys_id: "c" })!;
  assert(compareCursors(c, d) < 0 && compareCursors(d, c) > 0 && compareCursors(c, c) === 0);
  assertEquals(overlapStart(c, 15), "2023-12-31 23:59:55");
  assertEquals(highWaterMark(Date.UTC(2024, 0, 1, 0, 0, 5, 700), 1).text, "2024-01-01 00:00:04");
});

Deno.test("partition: table name and lower-cased host; query, query.domain and the cursor fields change it", () => {
  const scope = {
    query: "active=true",
    queryDomain: true,
    timestampField: "sys_updated_on",
    sysIdField: "sys_id",
  };
  const p = sourcePartition("incident", "Dev1.Service-Now.com", scope);
  assertEquals(p.table, "incident");
  assertEquals(p.instance, "dev1.service-now.com");
  // The fingerprint earlier versions stored for this query: offsets of existing configs stay readable.
  assertEquals(p.query_fingerprint, "9b6f0b2c21b155b7");
  const at = (change: Partial<typeof scope>) =>
    sourcePartition("incident", "dev1.service-now.com", { ...scope, ...change });
  assertEquals(
    at({ query: "  active=true ", timestampField: " sys_updated_on", sysIdField: "sys_id " }),
    p,
    "trimmed",
  );
  for (
    const change of [
      { query: "active=false" },
      { queryDomain: false },
      { timestampField: "sys_created_on" },
      { sysIdField: "inc_sys_id" },
    ]
  ) assertNotEquals(at(change), p, JSON.stringify(change));
  assertNotEquals(at({ timestampField: "sys_created_on" }), at({ sysIdField: "inc_sys_id" }));
});

Deno.test("keyset query: first page from an instant, then strictly after the last row, always bounded and ordered", () => {
  const q = new KeysetQuery("a=1^ORb=2^NQc=3", "sys_updated_on", "sys_id");
  assertEquals(
    q.page({ kind: "from", timestamp: "2024-01-01 00:00:00" }, {
      kind: "through",
      timestamp: "2024-01-02 00:00:00",
    }),
    "a=1^ORb=2^sys_updated_on>=2024-01-01 00:00:00^sys_updated_on<=2024-01-02 00:00:00" +
      "^NQc=3^sys_updated_on>=2024-01-01 00:00:00^sys_updated_on<=2024-01-02 00:00:00" +
      "^ORDERBYsys_updated_on^ORDERBYsys_id",
  );
  assertEquals(
    new KeysetQuery("", "sys_updated_on", "sys_id").page(
      { kind: "after", timestamp: "2024-01-01 00:00:00", sysId: "abc" },
      { kind: "through", timestamp: "2024-01-02 00:00:00" },
    ),
    "sys_updated_on>=2024-01-01 00:00:00^sys_updated_on>2024-01-01 00:00:00^ORsys_id>abc" +
      "^sys_updated_on<=2024-01-02 00:00:00^ORDERBYsys_updated_on^ORDERBYsys_id",
  );
  assertEquals(
    new KeysetQuery("", "sys_updated_on", "sys_id").page(
      { kind: "from", timestamp: "2024-01-01 00:00:00" },
      { kind: "at", timestamp: "2024-01-01 00:00:00", sysId: "8f" },
    ),
    "sys_updated_on>=2024-01-01 00:00:00^sys_updated_on<=2024-01-01 00:00:00^sys_updated_on<2024-01-01 00:00:00" +
      "^ORsys_id<=8f^ORDERBYsys_updated_on^ORDERBYsys_id",
    "a window that ends inside one second",
  );
});

Deno.test("dedup cache: bounded, oldest versions dropped first", () => {
  const cache = new DedupCache(2);
  cache.add("a");
  cache.add("b");
  cache.add("a");
  cache.add("c");
  assertEquals([cache.has("a"), cache.has("b"), cache.has("c"), cache.size], [false, true, true, 2]);
});

Deno.test("dedup cache: after many rounds of eviction it holds exactly the latest `capacity` versions", () => {
  const cache = new DedupCache(3);
  for (let i = 0; i < 20; i++) {
    cache.add(`v${i}`);
    if (i % 4 === 0) cache.add(`v${i}`); // a version already held neither moves nor evicts
  }
  assertEquals(cache.size, 3);
  assertEquals(Array.from({ length: 20 }, (_, i) => cache.has(`v${i}`)).flatMap((h, i) => h ? [i] : []), [
    17,
    18,
    19,
  ]);
});

Deno.test("strings schema: built from the first page, grows with new fields, keeps vanished fields as null", () => {
  const builder = createValueBuilder({
    mode: "strings",
    table: "incident",
    displayValue: "false",
    typedFields: new Map(),
    evolution: "fail",
    optionalSchema: false,
    logger: new TestContext().logger,
  });
  const page1 = [{ sys_id: "1", a: "x" }, { sys_id: "2", b: "y" }];
  builder.preparePage(page1);
  const r1 = builder.build(page1[0]);
  const r2 = builder.build(page1[1]);
  assertEquals(r1.schema, r2.schema, "one schema for the first page");
  assertEquals(r1.schema!.fields().map((f) => f.name), ["sys_id", "a", "b"]);
  assertEquals((r1.value as Struct).get("b"), null);
  const r3 = builder.build({ sys_id: "3", c: "z" });
  assertEquals(r3.schema!.fields().map((f) => f.name), ["sys_id", "a", "b", "c"]);
  assertEquals(r3.schema!.version, r1.schema!.version! + 1);
  assertEquals((r3.value as Struct).get("a"), null, "a field that stops appearing stays and is null");
  const r4 = builder.build({ sys_id: "4", a: null });
  assertEquals(r4.schema, r3.schema, "no new field, no new schema");
});

Deno.test("the mod-count field follows the sys id field's view prefix", () => {
  assertEquals(modCountFieldOf("sys_id"), "sys_mod_count");
  assertEquals(modCountFieldOf(" inc_sys_id "), "inc_sys_mod_count");
  assertEquals(modCountFieldOf("number"), "sys_mod_count");
});
