import { assertEquals, assertRejects } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { createKafka } from "../../src/kafka/mod.ts";
import type { ProducedRecord } from "../../src/kafka/mod.ts";
import { splitByRequestSize } from "../../src/kafka/producer.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("producer: acks carry each record's exact partition and offset, across topics; kcat agrees", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  mock.createTopic("orders", 3, 1);
  mock.createTopic("audit", 1, 1);
  const kafka = createKafka({
    brokers: mock.bootstrapServers.split(","),
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  const producer = await kafka.producer();
  try {
    // Pre-fill partition 1 so that offsets do not start at 0 everywhere.
    await producer.send([{ topic: "orders", partition: 1, key: null, value: enc("filler") }]);

    const records: ProducedRecord[] = [
      { topic: "orders", partition: 1, key: enc("a"), value: enc("o-1"), timestamp: 1_700_000_000_000 },
      { topic: "audit", key: null, value: enc("a-1"), headers: { trace: enc("t1"), kind: "text" } },
      { topic: "orders", partition: 2, key: enc("b"), value: enc("o-2") },
      { topic: "orders", partition: 1, key: enc("c"), value: null },
      { topic: "orders", key: enc("hashed-key"), value: enc("o-3") },
      { topic: "audit", key: null, value: enc("a-2") },
    ];
    const acks = await producer.send(records);
    assertEquals(acks.length, records.length);
    assertEquals(acks[0], { topic: "orders", partition: 1, offset: 1 });
    assertEquals(acks[1], { topic: "audit", partition: 0, offset: 0 });
    assertEquals(acks[2], { topic: "orders", partition: 2, offset: 0 });
    assertEquals(acks[3], { topic: "orders", partition: 1, offset: 2 });
    assertEquals(acks[5], { topic: "audit", partition: 0, offset: 1 });

    // The broker's view must match every ack, record by record.
    const seen = [
      ...await readTopicWithKcat(mock.bootstrapServers, "orders"),
      ...await readTopicWithKcat(
        mock.bootstrapServers,
        "audit",
      ),
    ];
    records.forEach((record, i) => {
      const at = seen.find((s) =>
        s.topic === acks[i].topic && s.partition === acks[i].partition && s.offset === acks[i].offset
      );
      assertEquals(at?.value ?? null, record.value === null ? null : new TextDecoder().decode(record.value));
    });
    const audit1 = seen.find((s) => s.topic === "audit" && s.offset === 0)!;
    assertEquals(audit1.headers, { trace: "t1", kind: "text" });
    const timed = seen.find((s) => s.topic === "orders" && s.partition === 1 && s.offset === 1)!;
    assertEquals(timed.timestamp, 1_700_000_000_000);
  } finally {
    await producer.close();
  }
});

Deno.test("producer: linger merges concurrent sends and still acks each record precisely", async () => {
  await using mock = startKafkaMock({ brokers: 1 });
  mock.createTopic("t", 2, 1);
  const kafka = createKafka({
    brokers: [mock.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  const producer = await kafka.producer({ lingerMs: 50, batchSizeBytes: 1_000_000 });
  try {
    const sends = Array.from(
      { length: 5 },
      (_, i) =>
        producer.send([
          { topic: "t", partition: 0, key: null, value: enc(`p0-${i}`) },
          { topic: "t", partition: 1, key: null, value: enc(`p1-${i}`) },
        ]),
    );
    await producer.flush();
    const acks = await Promise.all(sends);
    for (let i = 0; i < 5; i++) {
      assertEquals(acks[i], [
        { topic: "t", partition: 0, offset: i },
        { topic: "t", partition: 1, offset: i },
      ]);
    }
  } finally {
    await producer.close();
  }
  await assertRejects(() => producer.send([{ topic: "t", key: null, value: null }]), Error, "closed");
});

Deno.test("sends are split into requests under the broker's message.max.bytes, in order", () => {
  const record = (bytes: number) => ({ topic: "t", key: null, value: new Uint8Array(bytes) });
  const records = [record(600_000), record(300_000), record(200_000), record(2_000_000), record(10)];
  const requests = splitByRequestSize(records);
  assertEquals(requests.map((r) => r.map((x) => x.value!.byteLength)), [
    [600_000, 300_000],
    [200_000],
    [2_000_000],
    [10],
  ]);
  assertEquals(requests.flat(), records);
  assertEquals(splitByRequestSize([]), []);
});
