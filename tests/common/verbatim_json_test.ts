/** A parsed object's bytes are handed on only when they are exactly JSON.stringify's for it. */
import { assert, assertEquals } from "../support/assert.ts";
import { rememberJsonSource, verbatimJson } from "../../src/common/verbatim_json.ts";

const encode = (text: string) => new TextEncoder().encode(text);

/** Parses `text` and remembers its bytes for the object, as a body's reader does (pure ASCII or not). */
function read(text: string): { value: Record<string, unknown>; bytes: Uint8Array } {
  const bytes = encode(text);
  const value = JSON.parse(text);
  rememberJsonSource(value, bytes, bytes.length === text.length);
  return { value, bytes };
}

Deno.test("the bytes read are handed on, not copied, when they are what JSON.stringify writes", () => {
  for (
    const text of [
      '{"sys_id":"a1","short_description":"Disk full","active":true,"parent":null,"closed":false}',
      '{"priority":{"display_value":"2 - High","value":"2"},"caller_id":{"link":"https://x/y","value":"u1"}}',
      "{}",
      '{"empty":"","nested":{}}',
      '{"caller":"Zoë Müller – 東京 ☃","note":"naïve\\n"}',
      '{"notes":"line 1\\nline 2\\r\\n\\t\\"quoted\\" C:\\\\temp \\b\\f","x":"\\\\"}',
    ]
  ) {
    const { value, bytes } = read(text);
    assertEquals(JSON.stringify(value), text);
    assert(verbatimJson(value) === bytes, `${text}: the very bytes read`);
  }
});

Deno.test("text JSON.stringify would write otherwise is refused: whitespace, a key twice, numbers, integer keys", () => {
  for (
    const text of [
      '{"sys_id": "a1"}',
      '{ "sys_id":"a1"}',
      '{"sys_id":"a1"}\n',
      '{"a":"x","a":"yyyy"}',
      '{"a":"xxxxxxxxxx","a":"y"}',
      '{"n":1e2}',
      '{"u":"\\u0041"}',
      '{"u":"\\u001f"}',
      '{"slash":"a\\/b"}',
      '{"emoji":"ok 😀"}',
      '{"emoji":"😀", "x":"y"}',
      '{"caller":"Zoë", "x":"y"}',
      '{"n":100}',
      '{"list":["a"]}',
      '{"2":"b","1":"a"}',
      '{"deep":{"a":{"b":{"c":{"d":"e"}}}}}',
    ]
  ) {
    const { value } = read(text);
    assertEquals(verbatimJson(value), undefined, text);
  }
});

Deno.test("an object whose bytes were not remembered, or a value that is not an object, has none", () => {
  assertEquals(verbatimJson(JSON.parse('{"a":"b"}')), undefined);
  assertEquals(verbatimJson("text"), undefined);
  assertEquals(verbatimJson(null), undefined);
  assertEquals(verbatimJson(new Map([["a", "b"]])), undefined);
});

Deno.test("a changed object no longer matches its bytes when its length changed", () => {
  const { value } = read('{"a":"b","c":"d"}');
  delete value.c;
  assertEquals(verbatimJson(value), undefined);
  value.a = "longer";
  assertEquals(verbatimJson(value), undefined);
});
