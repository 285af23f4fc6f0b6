import { assert, assertEquals, assertMatch, assertNotEquals } from "../../support/assert.ts";
import {
  canonicalJson,
  canonicalOffsetKey,
  parseOffsetKey,
  serializeOffsetKey,
  serializeOffsetValue,
} from "../../../src/runtime/offsets/offset_key.ts";

Deno.test("offset key: serialised as Connect's JsonConverter writes it, compact", () => {
  assertEquals(
    serializeOffsetKey("jira", { table: "incident", shard: 2 }),
    `["jira",{"table":"incident","shard":2}]`,
  );
  assertEquals(
    serializeOffsetKey("file-src", { filename: "test.txt" }),
    `["file-src",{"filename":"test.txt"}]`,
  );
  assertEquals(serializeOffsetKey("c", {}), `["c",{}]`);
});

Deno.test("offset key and value: strings escaped as Jackson does (found by tests/conformance against Connect)", () => {
  assertEquals(serializeOffsetKey("c", { table: "😀\u001f" }), `["c",{"table":"\\uD83D\\uDE00\\u001F"}]`);
  assertEquals(
    serializeOffsetValue({ sys_id: "😀", position: 9007199254740991, ratio: 1.5, on: true, none: null }),
    `{"sys_id":"\\uD83D\\uDE00","position":9007199254740991,"ratio":1.5,"on":true,"none":null}`,
  );
});

Deno.test("offset key: the canonical form ignores field order, whitespace and number spelling", () => {
  const ours = canonicalOffsetKey("jira", { table: "incident", shard: 2 });
  const parsedJava = parseOffsetKey(JSON.parse(`[ "jira" , { "shard" : 2.0 , "table" : "incident" } ]`));
  assert(parsedJava.ok);
  assertEquals(canonicalOffsetKey(parsedJava.connector, parsedJava.partition as never), ours);
  assertNotEquals(canonicalOffsetKey("jira", { table: "incident", shard: "2" }), ours, "types still matter");
  assertNotEquals(canonicalOffsetKey("jira2", { table: "incident", shard: 2 }), ours);
});

Deno.test("offset key: canonical JSON sorts nested objects and keeps a __proto__ field as data", () => {
  assertEquals(canonicalJson({ b: [{ d: 1, c: 2 }], a: null }), `{"a":null,"b":[{"c":2,"d":1}]}`);
  const withProto = JSON.parse(`{"__proto__":"x","a":1}`);
  assertEquals(canonicalJson(withProto), `{"__proto__":"x","a":1}`);
});

Deno.test("offset key: keys that are not [string, object] are refused with the reason", () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ connector: "a" }, /expected a JSON list, got an object/],
    [["a"], /expected 2 elements, got 1/],
    [["a", {}, {}], /expected 2 elements, got 3/],
    [[null, {}], /first element, got null/],
    [["a", null], /second element, got null/],
    [["a", "t"], /second element, got a string/],
    [["a", [1]], /second element, got a list/],
  ];
  for (const [key, problem] of cases) {
    const parsed = parseOffsetKey(key);
    assertEquals(parsed.ok, false);
    if (!parsed.ok) assertMatch(parsed.problem, problem);
  }
});
