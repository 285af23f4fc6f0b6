import { assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException } from "../../../src/connect/errors.ts";
import { ConnectHeaders } from "../../../src/connect/headers.ts";
import { predicate, sink, source, transform } from "./helpers.ts";

Deno.test("TopicNameMatches matches the whole topic name", () => {
  const p = predicate("TopicNameMatches", { pattern: "my-prefix-.*" });
  assertEquals(p.test(source({ topic: "my-prefix-foo" })), true);
  assertEquals(p.test(source({ topic: "x-my-prefix-foo" })), false);
  assertEquals(predicate("TopicNameMatches", { pattern: "foo" }).test(source({ topic: "foobar" })), false);
  assertThrows(
    () => predicate("TopicNameMatches", { pattern: "" }),
    ConfigException,
    "String must be non-empty",
  );
  assertThrows(() => predicate("TopicNameMatches", { pattern: "[" }), ConfigException, "Invalid regex");
});

Deno.test("HasHeaderKey is true when a header with that name exists", () => {
  const p = predicate("HasHeaderKey", { name: "h" });
  assertEquals(p.test(source({ headers: new ConnectHeaders().addString("h", null) })), true);
  assertEquals(p.test(source({ headers: new ConnectHeaders().addString("other", "x") })), false);
});

Deno.test("RecordIsTombstone is true for a null value, for source and sink records", () => {
  const p = predicate("RecordIsTombstone");
  assertEquals(p.test(source({ key: "k", value: null })), true);
  assertEquals(p.test(sink({ value: "v" })), false);
});

Deno.test("Filter drops every record it is applied to", () => {
  assertEquals(transform("Filter").apply(source({ value: "v" })), null);
});
