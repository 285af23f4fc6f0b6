/** The digest of a sent value (src/source/reconcile/digest.ts). */
import { assertEquals, assertNotEquals } from "../../support/assert.ts";
import { DIGEST_PREFIX, isCurrentDigest, valueDigest } from "../../../src/source/reconcile/digest.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { Struct } from "../../../src/connect/struct.ts";

Deno.test("digest: the prefix and 16 hex digits; map key order does not matter; any field's change does", () => {
  const a = valueDigest({ sys_id: "x", state: "1", short_description: "a" });
  assertEquals(new RegExp(`^${DIGEST_PREFIX}[0-9a-f]{16}$`).test(a), true);
  assertEquals(isCurrentDigest(a), true);
  assertEquals(isCurrentDigest("0123456789abcdef"), false);
  assertEquals(valueDigest(new Map([["state", "1"], ["sys_id", "x"], ["short_description", "a"]])), a);
  assertEquals(valueDigest({ short_description: "a", state: "1", sys_id: "x" }), a);
  assertNotEquals(valueDigest({ sys_id: "x", state: "2", short_description: "a" }), a);
  assertNotEquals(valueDigest({ sys_id: "x", state: "1", short_description: "a", extra: null }), a);
  assertNotEquals(valueDigest({ sys_id: "x", state: 1, short_description: "a" }), a);
});

Deno.test("digest: a struct digests as its fields; an envelope as its after", () => {
  const schema = SchemaBuilder.struct().field("sys_id", Schema.STRING_SCHEMA).field(
    "state",
    Schema
      .OPTIONAL_STRING_SCHEMA,
  ).build();
  const s = new Struct(schema).put("sys_id", "x").put("state", "1");
  assertEquals(valueDigest(new Struct(schema).put("state", "1").put("sys_id", "x")), valueDigest(s));
  assertNotEquals(valueDigest(new Struct(schema).put("sys_id", "x").put("state", "2")), valueDigest(s));
  const row = { sys_id: "x", state: "1" };
  assertEquals(valueDigest({ before: null, after: row, source: {}, op: "u", ts_ms: 5 }), valueDigest(row));
  assertEquals(valueDigest({ before: null, after: row, source: {}, op: "u", ts_ms: 9 }), valueDigest(row));
});

Deno.test("digest: spreads near-equal values apart; values that would print alike differ", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 100_000; i++) seen.add(valueDigest({ sys_id: `row-${i}` }));
  assertEquals(seen.size, 100_000);
  assertNotEquals(valueDigest({ a: "ab" }), valueDigest({ a: "ba" }));
  assertNotEquals(valueDigest({ a: "1" }), valueDigest({ a: 1 }));
  assertNotEquals(valueDigest({ a: "b", c: "" }), valueDigest({ a: "", c: "b" }));
  assertNotEquals(valueDigest({ a: null }), valueDigest({ a: "null" }));
  assertNotEquals(valueDigest({ a: [1, 2] }), valueDigest({ a: [12] }));
  assertNotEquals(valueDigest({ a: new Uint8Array([1]) }), valueDigest({ a: new Uint8Array([2]) }));
  assertNotEquals(valueDigest({ a: true }), valueDigest({ a: false }));
});

Deno.test("digest: rows with other key lists in turn each digest by their own keys", () => {
  const a = valueDigest({ x: "1", y: "2" });
  valueDigest({ p: "1", q: "2", r: "3" });
  assertEquals(valueDigest({ y: "2", x: "1" }), a);
  assertEquals(valueDigest({ x: "1", y: "2" }), a);
});
