/** The schemaless fast path writes exactly the bytes of the exact (Jackson-compatible) writer, or steps aside. */
import { assert, assertEquals } from "../support/assert.ts";
import { JsonConverter } from "../../src/connect/converters/json/json_converter.ts";
import { schemalessJsonFastPath } from "../../src/connect/converters/json/schemaless_fast_path.ts";
import { rememberJsonSource } from "../../src/common/verbatim_json.ts";

function exactWriter(value: unknown): string {
  const converter = new JsonConverter();
  converter.configure({ "schemas.enable": "false" }, false);
  // A value the fast path refuses goes through the exact writer: use a wrapper the fast path cannot take.
  const exact = converter.toJsonText(null, new Map([["v", value], ["n", 1.5]]));
  return exact.slice('{"v":'.length, exact.length - ',"n":1.5}'.length);
}

const SAMPLES: unknown[] = [
  new Map([["short_description", 'He said "hi" \\ and left'], ["empty", ""], ["nul", null]]),
  new Map([["tab", "a\tb\nc\rd\bE\fF"], ["unicode", "Zoë – 東京 ☃"], ["slash", "a/b"]]),
  new Map([["ref", new Map([["value", "abc"], ["link", "https://x/api/now/table/sys_user/abc"]])]]),
  { plain: "object", nested: { display_value: "2 - High", value: "2" }, flag: true },
];

Deno.test("fast path output equals the exact writer's for strings, nested maps, quotes and unicode", () => {
  for (const sample of SAMPLES) {
    const fast = schemalessJsonFastPath(sample);
    assert(fast !== undefined, `fast path refused ${Deno.inspect(sample)}`);
    assertEquals(fast, exactWriter(sample));
  }
});

Deno.test("fast path steps aside for numbers, bytes, control characters without a short escape, and lone surrogates", () => {
  assertEquals(schemalessJsonFastPath(new Map([["n", 1.5]])), undefined);
  assertEquals(schemalessJsonFastPath(new Map([["b", new Uint8Array([1])]])), undefined);
  assertEquals(schemalessJsonFastPath(new Map([["c", "bell\u0007"]])), undefined);
  assertEquals(schemalessJsonFastPath(new Map([["s", "half \ud800 pair"]])), undefined);
  assertEquals(schemalessJsonFastPath(new Map([["e", "emoji 😀"]])), undefined);
  assertEquals(schemalessJsonFastPath(new Map([[1 as unknown as string, "x"]])), undefined);
  // The converter still writes those exactly (upper-case hex, as Jackson).
  const converter = new JsonConverter();
  converter.configure({ "schemas.enable": "false" }, false);
  assertEquals(converter.toJsonText(null, new Map([["c", "bell\u0007"]])), '{"c":"bell\\u0007"}');
  assertEquals(converter.toJsonText(null, new Map([["e", "emoji 😀"]])), '{"e":"emoji \\uD83D\\uDE00"}');
});

Deno.test("a schemaless row read from a body is written as its bytes read, which are the exact writer's", () => {
  const text =
    '{"sys_id":"a1","priority":{"display_value":"2 - High","value":"2"},"active":true,"parent":null}';
  const bytes = new TextEncoder().encode(text);
  const row = JSON.parse(text);
  rememberJsonSource(row, bytes, true);
  const plain = new JsonConverter();
  plain.configure({ "schemas.enable": "false" }, false);
  assert(plain.fromConnectData("t", null, row) === bytes, "the bytes read, not a copy");
  assertEquals(exactWriter(row), text);
  const accented = '{"caller":"Zoë Müller – 東京 ☃","notes":"line\\n\\"two\\""}';
  const accentedBytes = new TextEncoder().encode(accented);
  const accentedRow = JSON.parse(accented);
  rememberJsonSource(accentedRow, accentedBytes, false);
  assert(plain.fromConnectData("t", null, accentedRow) === accentedBytes, "non-ASCII bytes read, not a copy");
  assertEquals(exactWriter(accentedRow), accented);
  const enveloped = new JsonConverter();
  enveloped.configure({ "schemas.enable": "true" }, false);
  assertEquals(
    new TextDecoder().decode(enveloped.fromConnectData("t", null, row)!),
    `{"schema":null,"payload":${text}}`,
  );
});
