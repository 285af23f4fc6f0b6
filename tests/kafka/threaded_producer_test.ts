import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { createKafka } from "../../src/kafka/mod.ts";
import type { ProducedRecord } from "../../src/kafka/mod.ts";
import { packRecords, unpackRecords } from "../../src/kafka/record_pack.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null | undefined) => b == null ? null : new TextDecoder().decode(b);

Deno.test("record pack: records survive packing whole (nulls, partitions, timestamps, shared and text headers)", () => {
  const shared = enc("incident");
  const records: ProducedRecord[] = [
    { topic: "a", key: enc("k1"), value: enc("v1"), headers: { table: shared, kind: "téxt" }, timestamp: 5 },
    { topic: "b", partition: 3, key: null, value: null },
    { topic: "a", key: enc(""), value: enc("v3"), headers: { table: shared } },
  ];
  const back = unpackRecords(packRecords(records));
  assertEquals(back.length, 3);
  assertEquals(back.map((r) => [r.topic, r.partition, dec(r.key), dec(r.value), r.timestamp]), [
    ["a", undefined, "k1", "v1", 5],
    ["b", 3, null, null, undefined],
    ["a", undefined, "", "v3", undefined],
  ]);
  assertEquals(dec(back[0].headers!.table as Uint8Array), "incident");
  assertEquals(dec(back[0].headers!.kind as Uint8Array), "téxt");
  assertEquals(dec(back[2].headers!.table as Uint8Array), "incident");
  assertEquals(back[1].headers, undefined);
});

Deno.test("producer in its own thread: precise acks in order, bytes and headers as sent; kcat agrees", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  mock.createTopic("orders", 3, 1);
  const kafka = createKafka({
    brokers: [mock.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  // A small max.request.size: the send goes out as several requests, one after the other.
  const producer = await kafka.producer({ maxRequestBytes: 200 }, { ownThread: true });
  try {
    const records: ProducedRecord[] = Array.from({ length: 30 }, (_, i) => ({
      topic: "orders",
      key: enc(`key-${i % 4}`),
      value: enc(`value-${i}`),
      headers: { n: String(i) },
      timestamp: 1_700_000_000_000 + i,
    }));
    const acks = await producer.send(records);
    assertEquals(acks.length, records.length);
    const seen = await readTopicWithKcat(mock.bootstrapServers, "orders");
    assertEquals(seen.length, 30);
    records.forEach((record, i) => {
      const at = seen.find((s) => s.partition === acks[i].partition && s.offset === acks[i].offset)!;
      assertEquals(at.value, dec(record.value));
      assertEquals(at.headers, { n: String(i) });
      assertEquals(at.timestamp, record.timestamp);
    });
    // Per partition, records landed in the order given (per-key order).
    for (let i = 0; i < records.length; i++) {
      for (let j = i + 1; j < records.length; j++) {
        if (acks[i].partition === acks[j].partition) assert(acks[i].offset < acks[j].offset);
      }
    }
  } finally {
    await producer.close();
  }
  await assertRejects(
    () => producer.send([{ topic: "orders", key: null, value: enc("late") }]),
    Error,
    "closed",
  );
});

Deno.test("producer in its own thread: a failed send rejects with the producer's error", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  mock.createTopic("t", 1, 1);
  const kafka = createKafka({
    brokers: [mock.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 2_000,
    connectionTimeoutMs: 1_000,
  });
  const producer = await kafka.producer({ retries: 0 }, { ownThread: true });
  try {
    // An explicit partition the topic does not have: kafkajs refuses the send.
    const error = await assertRejects(() =>
      producer.send([{ topic: "t", partition: 7, key: null, value: enc("x") }])
    );
    assert((error as Error).message.length > 0);
  } finally {
    await producer.close();
  }
});
