import { Buffer } from "node:buffer";
import { assert, assertEquals } from "../support/assert.ts";
import { encodeProduceRequest, originalProduceProtocol } from "../../src/kafka/produce_encoder.ts";
import ProduceModule from "kafkajs/src/protocol/requests/produce/index.js";
import createRequestModule from "kafkajs/src/protocol/request.js";

// deno-lint-ignore no-explicit-any
const Produce = ProduceModule as any;
// deno-lint-ignore no-explicit-any
const createRequest = createRequestModule as any;

const text = (s: string) => Buffer.from(s, "utf8");

/** kafkajs's own encoding of a produce request body (the protocol as kafkajs ships it). */
async function kafkajsBytes(args: unknown, version = 7): Promise<number[]> {
  const encoded = await originalProduceProtocol({ version })(args as never).request.encode() as {
    buffer: Buffer;
  };
  return [...encoded.buffer];
}

function ourBytes(args: unknown): number[] {
  const encoded = encodeProduceRequest(args as never);
  assert(encoded !== null, "the fast path handles these records");
  return [...encoded.buf.subarray(0, encoded.offset)];
}

// Near the time of encoding: records without a timestamp take that time, and deltas must stay within 24 days.
const now = Date.now();
const rows = (n: number, topic: string) =>
  Array.from({ length: n }, (_, i) => ({
    key: text(`${topic}-${i}`.padEnd(32, "k")),
    value: text(JSON.stringify({ i, text: "é€😀 ".repeat(i % 7), big: "x".repeat(i * 37) })),
    timestamp: String(now + ((i * 7919) % 5000) - 2500),
    headers: {
      "svc.table": "incident",
      "svc.instance": text("dev12345"),
      "svc.extracted_at": text(String(now)),
      "ünïcode": "välue",
    },
  }));

Deno.test("produce encoder: a request of several topics and partitions gives kafkajs's bytes", async () => {
  const args = {
    acks: -1,
    timeout: 30000,
    compression: 0,
    topicData: [
      {
        topic: "bench.e2e",
        partitions: [
          { partition: 0, messages: rows(40, "a") },
          { partition: 7, firstSequence: 3, messages: rows(1, "b") },
        ],
      },
      { topic: "tôpic.two", partitions: [{ partition: 47, messages: rows(300, "c") }] },
    ],
  };
  assertEquals(ourBytes(args), await kafkajsBytes(args));
  assertEquals(ourBytes(args), await kafkajsBytes(args, 3));
});

Deno.test("produce encoder: null and string keys and values, header arrays, no headers, numeric timestamps", async () => {
  const messages = [
    { key: null, value: text("v"), timestamp: String(now) },
    { key: "string key é", value: null, timestamp: now + 5 },
    { value: "string value ✓", headers: {} },
    { key: text(""), value: text(""), headers: { multi: ["one", text("two"), "three"], empty: "" } },
    {
      key: text("k"),
      value: text("x".repeat(70_000)),
      timestamp: String(now - 1_000_000),
      headers: { h: text("") },
    },
  ];
  const args = {
    acks: 1,
    timeout: 1000,
    transactionalId: "txn-1",
    producerId: 4711,
    producerEpoch: 3,
    topicData: [{ topic: "t", partitions: [{ partition: 2, firstSequence: 17, messages }] }],
  };
  // Records without a timestamp take the time of encoding (Date.now()): both encodings see the same clock.
  const realNow = Date.now;
  const fixed = realNow();
  Date.now = () => fixed;
  try {
    assertEquals(ourBytes(args), await kafkajsBytes(args));
  } finally {
    Date.now = realNow;
  }
});

Deno.test("produce encoder: what it does not handle is left to kafkajs", () => {
  const base = { acks: -1, timeout: 1000 };
  const one = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    ...base,
    ...extra,
    topicData: [{ topic: "t", partitions: [{ partition: 0, messages: [message] }] }],
  });
  assertEquals(encodeProduceRequest(one({ value: text("v") }, { compression: 1 }) as never), null);
  assertEquals(encodeProduceRequest(one({ value: new Uint8Array([1]) }) as never), null);
  assertEquals(encodeProduceRequest(one({ value: text("v"), headers: { h: null } }) as never), null);
  assertEquals(encodeProduceRequest(one({ value: text("v"), headers: { h: 5 } }) as never), null);
  const farApart = {
    ...base,
    topicData: [{
      topic: "t",
      partitions: [{
        partition: 0,
        messages: [{ value: text("a"), timestamp: String(now) }, {
          value: text("b"),
          timestamp: String(now + 2 ** 31),
        }],
      }],
    }],
  };
  assertEquals(encodeProduceRequest(farApart as never), null);
});

Deno.test("produce encoder: the framed request (header, size prefix) is kafkajs's, built in the request's own buffer", async () => {
  const args = {
    acks: -1,
    timeout: 30000,
    topicData: [{ topic: "bench.e2e", partitions: [{ partition: 3, messages: rows(200, "f") }] }],
  };
  const frame = (request: unknown) =>
    createRequest({ correlationId: 12345, clientId: "tablesync-test", request });
  const ours = await frame(Produce.protocol({ version: 7 })(args).request);
  const theirs = await frame(originalProduceProtocol({ version: 7 })(args).request);
  assertEquals([...ours.buffer], [...theirs.buffer]);
  // One buffer: the body was not copied behind the header; the header went into the room in front of it.
  const framed = ours.buffer as Buffer;
  assert(
    framed.byteOffset > 0 && framed.byteOffset < 256,
    "the framed request starts inside the body's buffer",
  );
});

Deno.test("produce encoder: a request's buffer carries another request only after the broker answered", async () => {
  const args = (tag: string) => ({
    acks: -1,
    timeout: 30000,
    topicData: [{ topic: "t", partitions: [{ partition: 0, messages: rows(100, tag) }] }],
  });
  const build = (tag: string) => Produce.protocol({ version: 7 })(args(tag));
  const frame = async (built: { request: unknown }) =>
    (await createRequest({ correlationId: 1, clientId: "c", request: built.request })).buffer as Buffer;
  const a = build("a");
  const aBytes = await frame(a);
  const aCopy = [...aBytes];
  const b = build("b");
  const bBytes = await frame(b);
  assert(
    bBytes.buffer !== aBytes.buffer,
    "no answer to the first request yet: the second has its own buffer",
  );
  // The answer to the first request (its decoding fails on these bytes; the buffer is free all the same).
  await a.response.decode(Buffer.from([0, 0, 0, 0])).catch(() => {});
  assertEquals([...aBytes], aCopy, "answering does not touch the bytes");
  const c = build("c");
  const cBytes = await frame(c);
  assertEquals(cBytes.buffer, aBytes.buffer, "the third request reuses the answered one's buffer");
  assertEquals([...cBytes], [
    ...await frame({ request: originalProduceProtocol({ version: 7 })(args("c")).request }),
  ]);
});

Deno.test("produce encoder: records sharing one headers object (a source page's) give kafkajs's bytes", async () => {
  const shared = {
    "svc.table": "incident",
    "svc.extracted_at": text(String(now)),
    multi: ["one", text("twö")],
  };
  const other = { "svc.table": text("problem") };
  const messages = rows(60, "s").map((m, i) => ({ ...m, headers: i % 20 === 19 ? other : shared }));
  const args = {
    acks: -1,
    timeout: 30000,
    compression: 0,
    topicData: [{ topic: "bench.e2e", partitions: [{ partition: 0, messages }, { partition: 1, messages }] }],
  };
  assertEquals(ourBytes(args), await kafkajsBytes(args));
  assertEquals(ourBytes(args), await kafkajsBytes(args), "a second request, the headers' bytes known");
});
