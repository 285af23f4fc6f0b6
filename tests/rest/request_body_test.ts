/** request_body.ts: JSON bodies within rest.request.max.bytes, read as a stream that stops past the limit. */
import { assertEquals, assertRejects, assertStringIncludes, assertThrows } from "../support/assert.ts";
import { checkDeclaredLength, limitBody, readJson } from "../../src/rest/request_body.ts";
import { ConnectRestError } from "../../src/runtime/herder/connect_rest_error.ts";

/** A body of `total` bytes of spaces handed out 64 KiB at a time; `pulled()` says how much was taken. */
function countingBody(total: number, head = "") {
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head) controller.enqueue(new TextEncoder().encode(head));
    },
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return { stream, pulled: () => sent };
}

function post(body: BodyInit | null, contentType: string | null = "application/json"): Request {
  const headers: Record<string, string> = contentType === null ? {} : { "content-type": contentType };
  return new Request("http://x/connectors", { method: "POST", body, headers });
}

Deno.test("a JSON body within the limit is parsed; charset utf-8 is accepted", async () => {
  const request = post('{"name":"a"}', "application/json; charset=UTF-8");
  limitBody(request, 100);
  assertEquals(await readJson(request), { name: "a" });
});

Deno.test("a body past the limit is refused with 413 and the stream is not read to its end", async () => {
  const body = countingBody(30 * 1024 * 1024, "{");
  const request = post(body.stream);
  limitBody(request, 1024 * 1024);
  const error = (await assertRejects(() => readJson(request), ConnectRestError)) as ConnectRestError;
  assertEquals(error.status, 413);
  assertStringIncludes(error.message, "rest.request.max.bytes (1048576 bytes)");
  // At most the limit plus one chunk was taken from a 30 MB body.
  const pulled = body.pulled();
  assertEquals(pulled <= 1024 * 1024 + 2 * 64 * 1024, true, `pulled ${pulled} bytes`);
});

Deno.test("a declared Content-Length above the limit is refused before reading", () => {
  const request = new Request("http://x/connectors", {
    method: "POST",
    headers: { "content-length": "31457280" },
  });
  const error =
    (assertThrows(() => checkDeclaredLength(request, 1024), ConnectRestError)) as ConnectRestError;
  assertEquals(error.status, 413);
  assertStringIncludes(error.message, "Content-Length 31457280");
  checkDeclaredLength(new Request("http://x/", { headers: { "content-length": "1024" } }), 1024);
});

Deno.test("a body that is not sent as JSON is refused with 415", async () => {
  for (
    const type of [
      "text/plain",
      null,
      "application/x-www-form-urlencoded",
      "application/json; charset=latin1",
    ]
  ) {
    const error = (await assertRejects(() =>
      readJson(post('{"name":"a"}', type)), ConnectRestError)) as ConnectRestError;
    assertEquals(error.status, 415, String(type));
    assertStringIncludes(error.message, "application/json");
  }
});

Deno.test("an empty or malformed body is a 400 saying so", async () => {
  const empty = (await assertRejects(() => readJson(post(null)), ConnectRestError)) as ConnectRestError;
  assertEquals([empty.status, empty.message], [400, "Request body is empty; a JSON body is required"]);
  const blank = (await assertRejects(() => readJson(post("  ")), ConnectRestError)) as ConnectRestError;
  assertEquals(blank.status, 400);
  const bad = (await assertRejects(() => readJson(post("{nope")), ConnectRestError)) as ConnectRestError;
  assertEquals(bad.status, 400);
  assertStringIncludes(bad.message, "not valid JSON");
});
