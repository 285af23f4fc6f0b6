import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { classifyTransportFailure, HeadersTimeoutError } from "../../src/instance/transport_errors.ts";
import {
  ConnectFailedError,
  ConnectTimeoutError,
  InstanceTransport,
  POOL_IDLE_MS,
} from "../../src/instance/transport.ts";
import { PermitWaitTimeout } from "../../src/instance/permit_pool.ts";
import { BodyStalledError, readCappedBody } from "../../src/instance/capped_body.ts";
import { ResponseTooLargeError } from "../../src/instance/errors.ts";
import { parseInstanceUrl } from "../../src/instance/instance_url.ts";
import { InstanceClock } from "../../src/instance/instance_clock.ts";
import { encodeBase64Utf8 } from "../../src/instance/auth/basic.ts";
import { testSettings } from "./_helpers.ts";

const fetchFailed = (cause: string) => new TypeError("fetch failed", { cause: new Error(cause) });

Deno.test("transport failures: connect-stage errors were not sent; later ones may have been", () => {
  const connect = classifyTransportFailure(fetchFailed(
    "error sending request for url (http://127.0.0.1:1/api/now/table/x?sysparm_query=a): client error (Connect): tcp connect error: Connection refused (os error 111)",
  ));
  assertEquals(connect, {
    kind: "not_sent",
    reason: "fetch failed: client error (Connect): tcp connect error: Connection refused (os error 111)",
  });
  assertEquals(
    classifyTransportFailure(fetchFailed(
      "error sending request from 127.0.0.1:5 for http://h/ (127.0.0.1:80): client error (SendRequest): connection closed before message completed",
    )).kind,
    "maybe_sent",
  );
  assertEquals(classifyTransportFailure(new HeadersTimeoutError(10)).kind, "maybe_sent");
  assertEquals(classifyTransportFailure(new BodyStalledError(10)).kind, "maybe_sent");
  assertEquals(classifyTransportFailure(new PermitWaitTimeout(10, 1)).kind, "not_sent");
  assertEquals(classifyTransportFailure(new ConnectTimeoutError("h:1", 10)).kind, "not_sent");
  assertEquals(
    classifyTransportFailure(new ConnectFailedError("h:1", new Error("refused"))).kind,
    "not_sent",
  );
});

Deno.test("transport failures: certificate problems are TLS configuration errors with advice", () => {
  const unknown = classifyTransportFailure(
    fetchFailed("client error (Connect): invalid peer certificate: UnknownIssuer"),
  );
  assert(
    unknown.kind === "tls" && unknown.reason.includes("svc.tls.truststore.path"),
    JSON.stringify(unknown),
  );
  const name = classifyTransportFailure(
    fetchFailed("client error (Connect): invalid peer certificate: NotValidForName"),
  );
  assert(name.kind === "tls" && name.reason.includes("does not name the host"));
  const client = classifyTransportFailure(
    fetchFailed("client error (Connect): received fatal alert: CertificateRequired"),
  );
  assert(client.kind === "tls" && client.reason.includes("svc.tls.keystore.path"));
});

Deno.test("connect check: bounded by the connect timeout, skipped while connections are warm", async () => {
  let attempts = 0;
  const hanging = (_h: string, _p: number, signal: AbortSignal) => {
    attempts++;
    return new Promise<void>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
  };
  const address = parseInstanceUrl("http://instance.example.test:8080");
  const transport = await InstanceTransport.create(
    address,
    testSettings(address.origin, { http: { connectTimeoutMs: 50 } }),
    hanging,
  );
  try {
    const error = await assertRejects(
      () => transport.ensureConnectable(),
      ConnectTimeoutError,
      "instance.example.test:8080",
    );
    assertEquals((error as ConnectTimeoutError).timeoutMs, 50);
    transport.answered();
    await transport.ensureConnectable();
    assertEquals(attempts, 1, "no check while a pooled connection is presumably alive");
    assert(POOL_IDLE_MS > 0);
  } finally {
    transport.close();
  }
});

Deno.test("connect check: goes to the proxy when one is configured", async () => {
  const targets: string[] = [];
  const address = parseInstanceUrl("https://instance.example.test");
  const transport = await InstanceTransport.create(
    address,
    testSettings(address.origin, {
      proxy: { url: "http://proxy.example.test:3128", username: null, password: null },
    }),
    (hostname, port) => (targets.push(`${hostname}:${port}`), Promise.resolve()),
  );
  await transport.ensureConnectable();
  transport.close();
  assertEquals(targets, ["proxy.example.test:3128"]);
});

Deno.test("capped body: stops pulling as soon as the limit is passed", async () => {
  let pulls = 0;
  const response = new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(1000));
      },
    }),
  );
  await assertRejects(
    () => readCappedBody(response, { maxBytes: 10_000, idleMs: 1000 }, { method: "GET", path: "/x" }),
    ResponseTooLargeError,
  );
  assert(pulls <= 13, `pulled ${pulls} chunks of an endless body`);
});

Deno.test("capped body: a stalled body fails after the idle time", async () => {
  const response = new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
      },
    }),
  );
  await assertRejects(
    () => readCappedBody(response, { maxBytes: 1000, idleMs: 30 }, { method: "GET", path: "/x" }),
    BodyStalledError,
  );
});

Deno.test("capped body, byte stream (fetch's kind): read into one buffer grown as needed, capped, stall detected", async () => {
  const label = { method: "GET", path: "/x" };
  const chunks = [new Uint8Array(10_000).fill(1), new Uint8Array(30_000).fill(2), new Uint8Array(5).fill(3)];
  const byteBody = (parts: Uint8Array[], close: boolean) =>
    new Response(
      new ReadableStream({
        type: "bytes",
        start(controller) {
          for (const part of parts) controller.enqueue(part.slice());
          if (close) controller.close();
        },
      }),
    );
  const body = await readCappedBody(byteBody(chunks, true), { maxBytes: 40_005, idleMs: 1000 }, label);
  assertEquals(body.length, 40_005);
  assertEquals([body[0], body[9_999], body[10_000], body[39_999], body[40_000], body[40_004]], [
    1,
    1,
    2,
    2,
    3,
    3,
  ]);
  await assertRejects(
    () => readCappedBody(byteBody(chunks, true), { maxBytes: 40_004, idleMs: 1000 }, label),
    ResponseTooLargeError,
  );
  assertEquals((await readCappedBody(byteBody([], true), { maxBytes: 10, idleMs: 1000 }, label)).length, 0);
  await assertRejects(
    () => readCappedBody(byteBody([new Uint8Array(10)], false), { maxBytes: 1000, idleMs: 30 }, label),
    BodyStalledError,
  );
});

Deno.test("capped body: read into one buffer of the expected size (or Content-Length), not one doubled from 16 KiB", async () => {
  const label = { method: "GET", path: "/x" };
  const parts = () => Array.from({ length: 10 }, (_, i) => new Uint8Array(10_000).fill(i));
  const byteBody = (headers: Record<string, string> = {}) =>
    new Response(
      new ReadableStream({
        type: "bytes",
        start(controller) {
          for (const part of parts()) controller.enqueue(part);
          controller.close();
        },
      }),
      { headers },
    );
  const limits = { maxBytes: 1_000_000, idleMs: 1000 };
  const doubled = await readCappedBody(byteBody(), limits, label);
  assertEquals(doubled.buffer.byteLength, 131_072, "16 KiB doubled three times");
  const expected = await readCappedBody(byteBody(), { ...limits, expectedBytes: 100_000 }, label);
  assertEquals([expected.length, expected.buffer.byteLength], [100_000, 100_001]);
  assertEquals([expected[0], expected[99_999]], [0, 9]);
  const declared = await readCappedBody(byteBody({ "content-length": "100000" }), limits, label);
  assertEquals([declared.length, declared.buffer.byteLength], [100_000, 100_001]);
  // Expected too small: the buffer grows as before.
  const short = await readCappedBody(byteBody(), { ...limits, expectedBytes: 60_000 }, label);
  assertEquals([short.length, short[99_999]], [100_000, 9]);
});

Deno.test("instance clock: Date header offset, conservative and latest-wins", () => {
  const clock = new InstanceClock();
  assertEquals(clock.now(), null);
  const received = Date.parse("2024-01-01T00:00:10.700Z");
  clock.observe("Mon, 01 Jan 2024 00:00:10 GMT", received);
  assertEquals(clock.skewMs, -700);
  assertEquals(clock.now(received + 1000)?.toISOString(), "2024-01-01T00:00:11.000Z");
  clock.observe("Mon, 01 Jan 2024 00:00:05 GMT", received);
  assertEquals(clock.skewMs, -5700);
  assertEquals(clock.observe("garbage", received), null);
  assertEquals(clock.skewMs, -5700);
});

Deno.test("basic auth: credentials are UTF-8 before Base64", () => {
  assertEquals(encodeBase64Utf8("user:pässwörd"), "dXNlcjpww6Rzc3fDtnJk");
});
