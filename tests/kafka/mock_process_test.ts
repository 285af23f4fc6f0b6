import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startKafkaMockProcess } from "../support/kafka_mock_process.ts";
import { createKafka } from "../../src/kafka/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("mock harness: the child-process mock takes commands, fails sends while SIGSTOPped, and dies with SIGKILL", async () => {
  await using broker = await startKafkaMockProcess({ brokers: 1, topics: { p: 1 } });
  await broker.createTopic("q", 2, 1);
  await assertRejects(() => Promise.resolve(broker.createTopic("q", 2, 1)), Error, "TOPIC_ALREADY_EXISTS");
  const kafka = createKafka({
    brokers: [broker.bootstrapServers],
    clientId: "test",
    requestTimeoutMs: 500,
    connectionTimeoutMs: 500,
  });
  const producer = await kafka.producer({ retries: 1, retryBackoffMaxMs: 100 });
  try {
    assertEquals(await producer.send([{ topic: "q", partition: 1, key: null, value: enc("x") }]), [
      { topic: "q", partition: 1, offset: 0 },
    ]);
    broker.signal("SIGSTOP");
    const sentAt = performance.now();
    const hung = await producer.send([{ topic: "q", partition: 1, key: null, value: enc("y") }]).then(
      (acks) => `resolved after ${Math.round(performance.now() - sentAt)} ms: ${JSON.stringify(acks)}`,
      () => null,
    );
    assertEquals(hung, null, "a send to the SIGSTOPped cluster fails");
    broker.signal("SIGCONT");
    // After a hang the broker answers again; the earlier failed send may or may not have been written.
    const [ack] = await producer.send([{ topic: "q", partition: 1, key: null, value: enc("z") }]);
    assert(ack.offset >= 1, `offset ${ack.offset}`);
  } finally {
    await producer.close();
  }
  broker.signal("SIGKILL");
  const status = await broker.status;
  assertEquals(status.signal, "SIGKILL");
});
