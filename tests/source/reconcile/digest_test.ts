/** The digest of a sent value (src/source/reconcile/digest.ts). */
import { assertEquals, assertNotEquals } from "../../support/assert.ts";
import { canonicalText, hash64, valueDigest } from "../../../src/source/reconcile/digest.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { Struct } from "../../../src/connect/struct.ts";

Deno.test("digest: 16 hex digits; map key order does not matter; any field's change does", () => {
  const a = valueDigest({ sys_id: "x", state: "1", short_description: "a" });
  assertEquals(/^[0-9a-f]{16}$/.test(a), true);
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
  assertEquals(canonicalText(s), '{"sys_id":"x","state":"1"}');
  const row = { sys_id: "x", state: "1" };
  assertEquals(valueDigest({ before: null, after: row, source: {}, op: "u", ts_ms: 5 }), valueDigest(row));
  assertEquals(valueDigest({ before: null, after: row, source: {}, op: "u", ts_ms: 9 }), valueDigest(row));
});

Deno.test("hash64: spreads near-equal texts apart", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 100_000; i++) seen.add(hash64(`row-${i}`));
  assertEquals(seen.size, 100_000);
  assertNotEquals(hash64("ab"), hash64("ba"));
});
