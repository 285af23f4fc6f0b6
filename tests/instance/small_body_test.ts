/**
 * Small answers of declared length are read whole (small_body.ts); over a real socket, since fetch's own bodies
 * are what that path is for: the body arrives intact, a stall still fails the attempt and lets go of the
 * connection, and bodies that are not small (no length, over the size, compressed) still take capped_body.ts.
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { InstanceHttpClient } from "../../src/instance/http_client.ts";
import { InstanceRetriableError, ResponseTooLargeError } from "../../src/instance/errors.ts";
import { isSmallBody, SMALL_BODY_BYTES } from "../../src/instance/small_body.ts";
import { testOptions } from "./_helpers.ts";

/** A plain HTTP server on a real socket. */
function startServer(handler: (request: Request) => Response | Promise<Response>) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  return { origin: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

function filler(bytes: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes).map((_, i) => 97 + (i % 26));
}

Deno.test("isSmallBody: a declared, uncompressed length within both limits", () => {
  const answer = (headers: Record<string, string>) => new Response(null, { headers });
  assert(isSmallBody(answer({ "content-length": "120" }), 1000));
  assert(isSmallBody(answer({ "content-length": "0" }), 1000));
  assert(
    isSmallBody(answer({ "content-length": String(SMALL_BODY_BYTES), "content-encoding": "identity" }), 1e9),
  );
  assert(!isSmallBody(answer({}), 1000), "no length");
  assert(!isSmallBody(answer({ "content-length": String(SMALL_BODY_BYTES + 1) }), 1e9), "over the size");
  assert(!isSmallBody(answer({ "content-length": "120" }), 100), "over the response limit");
  assert(!isSmallBody(answer({ "content-length": "120", "content-encoding": "gzip" }), 1000), "compressed");
  assert(!isSmallBody(answer({ "content-length": "12, 12" }), 1000), "not a number");
});

Deno.test("small and larger bodies, declared or not, arrive intact; the limit still applies", async () => {
  const server = startServer((request) => {
    const [, kind, size] = new URL(request.url).pathname.split("/");
    const body = filler(Number(size));
    if (kind === "len") return new Response(body);
    // No Content-Length: a stream of two chunks is sent chunked.
    return new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(body.slice(0, body.length >> 1));
          controller.enqueue(body.slice(body.length >> 1));
          controller.close();
        },
      }),
    );
  });
  const client = await InstanceHttpClient.create(
    testOptions(server.origin, { http: { maxResponseBytes: 200_000 } }),
  );
  try {
    for (const path of ["/len/0", "/len/57", `/len/${SMALL_BODY_BYTES}`, "/len/150000", "/chunked/57"]) {
      const response = await client.request({ method: "GET", path });
      assertEquals(response.body, filler(Number(path.split("/")[2])), path);
    }
    await assertRejects(() => client.request({ method: "GET", path: "/len/200001" }), ResponseTooLargeError);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a small body that stalls fails the attempt after the idle time and drops the connection", async () => {
  let cancelled = 0;
  let requests = 0;
  const bodies: ReadableStreamDefaultController<Uint8Array>[] = [];
  const server = startServer(() => {
    requests++;
    // 100 bytes declared, 10 sent, then nothing.
    return new Response(
      new ReadableStream({
        start(controller) {
          bodies.push(controller);
          controller.enqueue(filler(10));
        },
        cancel() {
          cancelled++;
        },
      }),
      { headers: { "content-length": "100" } },
    );
  });
  const client = await InstanceHttpClient.create(
    testOptions(server.origin, { http: { requestTimeoutMs: 150 }, retry: { maxAttempts: 2 } }),
  );
  try {
    await assertRejects(
      () => client.request({ method: "GET", path: "/stalls" }),
      InstanceRetriableError,
      "response body stalled: no data for 150 ms",
    );
    assertEquals(requests, 2, "a GET is retried after a stall");
    // The client let go of each connection: the server's body was cancelled for both attempts.
    for (let i = 0; i < 50 && cancelled < 2; i++) await new Promise((r) => setTimeout(r, 20));
    assertEquals(cancelled, 2);
  } finally {
    client.close();
    // Bodies still held open would keep the server from shutting down.
    for (const body of bodies) {
      try {
        body.error(new Error("test over"));
      } catch {
        // already cancelled
      }
    }
    await server.close();
  }
});
