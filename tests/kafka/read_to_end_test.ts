/**
 * readTopicToEnd on the real broker: a read of some partitions leaves the others alone, and a reader whose consumer
 * stops delivering fails its read, not the task that owns the client (the client's onConsumerCrash).
 */
import { assertEquals, assertRejects } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { createKafka, readTopicToEnd } from "../../src/kafka/mod.ts";

const decode = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);

function clientWithCrashes(bootstrapServers: string) {
  const crashes: Error[] = [];
  const kafka = createKafka(
    {
      brokers: [bootstrapServers],
      clientId: "read-to-end-test",
      requestTimeoutMs: 10_000,
      connectionTimeoutMs: 3_000,
    },
    { onConsumerCrash: (e) => void crashes.push(e) },
  );
  return { kafka, crashes };
}

Deno.test("readTopicToEnd: the partitions asked for, each in offset order, with the record; no other partition's records", async () => {
  await using broker = await startKafkaBroker();
  const topic = uniqueName("read-to-end.partitions");
  await broker.createTopic(topic, 3);
  await produceRecords(broker.bootstrapServers, topic, [
    ...[0, 1, 2].flatMap((p) =>
      [0, 1, 2].map((i) => ({ key: `k${p}-${i}`, value: `v${p}-${i}`, partition: p }))
    ),
  ]);
  const { kafka, crashes } = clientWithCrashes(broker.bootstrapServers);
  const seen: string[] = [];
  await readTopicToEnd(kafka, topic, (key, value, record) => {
    seen.push(`${record.partition}/${record.offset} ${decode(key)}=${decode(value)}`);
  }, { groupPrefix: "read-to-end-test", timeoutMs: 60_000, partitions: [1] });
  assertEquals(seen, ["1/0 k1-0=v1-0", "1/1 k1-1=v1-1", "1/2 k1-2=v1-2"]);
  assertEquals(crashes, []);
});

Deno.test("readTopicToEnd: a consumer that stops delivering fails the read, naming the topic, and leaves the client's crash handler untold", async () => {
  await using broker = await startKafkaBroker();
  const topic = uniqueName("read-to-end.crash");
  await broker.createTopic(topic, 1);
  await produceRecords(broker.bootstrapServers, topic, [{ key: "a", value: "1" }, { key: "b", value: "2" }]);
  const { kafka, crashes } = clientWithCrashes(broker.bootstrapServers);
  await assertRejects(
    () =>
      readTopicToEnd(kafka, topic, () => {
        throw new Error("visit failed");
      }, { groupPrefix: "read-to-end-test", timeoutMs: 60_000 }),
    Error,
    `reading ${topic} stopped: visit failed`,
  );
  assertEquals(crashes, []);
});
