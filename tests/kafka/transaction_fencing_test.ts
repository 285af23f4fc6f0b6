/**
 * Fencing of transactional producers on the real broker (Kafka 4.3.1, transaction.version=2 finalised), read back
 * with read_committed by kcat (librdkafka), so the check does not rely on kafkajs agreeing with itself.
 *
 * The probe saw a fenced producer commit. Its cause (see src/kafka/transactional_producer.ts): kafkajs
 * 2.2.4 sends the transactional InitProducerId on the first `transaction()`, not on `connect()`, so a second
 * producer that had only connected had fenced nobody. Once the second producer's InitProducerId has gone out, the
 * broker refuses the first one's EndTxn (v1) with INVALID_PRODUCER_EPOCH and kafkajs surfaces it.
 */
import { Kafka, logLevel, type Producer } from "kafkajs";
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { createKafka, ProducerFencedError, TransactionTimedOutError } from "../../src/kafka/mod.ts";

const text = (s: string) => new TextEncoder().encode(s);

/** Two raw kafkajs producers with the same transactional id, connected; `use` runs with them, then both go. */
async function twoProducers(
  bootstrapServers: string,
  use: (first: Producer, second: Producer) => Promise<void>,
): Promise<void> {
  const kafka = new Kafka({
    brokers: [bootstrapServers],
    clientId: "fencing-test",
    logLevel: logLevel.NOTHING,
  });
  const transactionalId = uniqueName("txid");
  const first = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  const second = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  try {
    await first.connect();
    await use(first, second);
  } finally {
    await first.disconnect();
    await second.disconnect();
  }
}

/** tablesync's Kafka client of the broker. */
function ourClient(bootstrapServers: string) {
  return createKafka({
    brokers: [bootstrapServers],
    clientId: "fencing-test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
}

async function committedValues(bootstrapServers: string, topic: string): Promise<string[]> {
  const records = await readTopicWithKcat(bootstrapServers, topic, { readCommitted: true });
  return records.map((r) => r.value ?? "(tombstone)");
}

Deno.test("kafkajs 2.2.4: a producer that only connected has not initialised its transactional id and fences nobody", async () => {
  await using broker = await startKafkaBroker();
  const topic = uniqueName("fence.connect-only");
  await broker.createTopic(topic, 1);
  await twoProducers(broker.bootstrapServers, async (first, second) => {
    const txn = await first.transaction();
    await txn.send({ topic, messages: [{ key: "k", value: "first" }] });
    await second.connect(); // InitProducerId without the transactional id: a fresh idempotent producer id
    await txn.commit(); // nothing fenced the first producer yet
    assertEquals(await committedValues(broker.bootstrapServers, topic), ["first"]);
  });
});

Deno.test("kafkajs 2.2.4: after the second producer's transactional InitProducerId the first one's commit fails INVALID_PRODUCER_EPOCH", async () => {
  await using broker = await startKafkaBroker();
  const topic = uniqueName("fence.raw");
  await broker.createTopic(topic, 1);
  await twoProducers(broker.bootstrapServers, async (first, second) => {
    await second.connect();
    const zombie = await first.transaction();
    await zombie.send({ topic, messages: [{ key: "k", value: "zombie" }] });
    const owner = await second.transaction(); // InitProducerId(transactional id): epoch bumped, zombie aborted
    const failure = await assertRejects(() => zombie.commit()) as { type?: string };
    assertEquals(failure.type, "INVALID_PRODUCER_EPOCH");
    await owner.send({ topic, messages: [{ key: "k", value: "owner" }] });
    await owner.commit();
    assertEquals(await committedValues(broker.bootstrapServers, topic), ["owner"]);
  });
});

Deno.test("transactionalProducer: creating one fences the older owner at once; only committed transactions are read", async () => {
  await using broker = await startKafkaBroker();
  const topic = uniqueName("fence.ours");
  await broker.createTopic(topic, 2);
  const kafka = ourClient(broker.bootstrapServers);
  const transactionalId = uniqueName("txid");
  const old = await kafka.transactionalProducer(transactionalId);
  let replacement;
  try {
    const committed = await old.begin();
    await committed.send([{ topic, key: text("a"), value: text("old-committed") }]);
    await committed.commit();
    const aborted = await old.begin();
    await aborted.send([{ topic, key: text("b"), value: text("old-aborted") }]);
    await aborted.abort();
    const zombie = await old.begin();
    await zombie.send([{ topic, key: text("c"), value: text("zombie") }, {
      topic,
      key: text("d"),
      value: null,
    }]);

    // The new owner only starts (no transaction of its own yet): that alone must fence the old one.
    replacement = await kafka.transactionalProducer(transactionalId);
    const fenced = await assertRejects(() => zombie.commit(), ProducerFencedError);
    assert(fenced.message.includes(transactionalId), fenced.message);
    await assertRejects(() => old.begin(), ProducerFencedError);

    const owner = await replacement.begin();
    await owner.send([{ topic, key: text("e"), value: text("owner") }, {
      topic,
      key: text("f"),
      value: null,
    }]);
    await owner.commit();
    const values = (await committedValues(broker.bootstrapServers, topic)).sort();
    assertEquals(values, ["(tombstone)", "old-committed", "owner"]);
  } finally {
    await old.close();
    await replacement?.close();
  }
});

Deno.test("fenceProducers (the fencing round's Admin.fenceProducers): every listed id's open transaction is refused and aborted", async () => {
  await using broker = await startKafkaBroker();
  const topic = uniqueName("fence.round");
  await broker.createTopic(topic, 2);
  const kafka = ourClient(broker.bootstrapServers);
  const ids = [uniqueName("txid"), uniqueName("txid")];
  const zombies = await Promise.all(ids.map((id) => kafka.transactionalProducer(id)));
  try {
    const open = await Promise.all(zombies.map((z) => z.begin()));
    await Promise.all(
      open.map((t, i) => t.send([{ topic, key: text(`k${i}`), value: text(`zombie-${i}`) }])),
    );
    // An id never used before is fenced too (a task count record may name tasks that never started).
    await kafka.fenceProducers([...ids, uniqueName("txid")]);
    for (const t of open) await assertRejects(() => t.commit(), ProducerFencedError);
    assertEquals(await committedValues(broker.bootstrapServers, topic), []);
  } finally {
    await Promise.all(zombies.map((z) => z.close()));
  }
});

Deno.test("transaction.timeout.ms reaches the coordinator: above the broker's transaction.max.timeout.ms the producer is refused, within it the producer starts", async () => {
  await using broker = await startKafkaBroker();
  const kafka = ourClient(broker.bootstrapServers);
  // The broker's transaction.max.timeout.ms is 900000 (its default): InitProducerId answers
  // INVALID_TRANSACTION_TIMEOUT above it, so only a timeout that was sent can be refused.
  await assertRejects(
    () => kafka.transactionalProducer(uniqueName("txid"), { transactionTimeoutMs: 900_001 }),
    Error,
    "transaction timeout",
  );
  const producer = await kafka.transactionalProducer(uniqueName("txid"), { transactionTimeoutMs: 900_000 });
  await producer.close();
});

Deno.test("a transaction left open past transaction.timeout.ms: the coordinator aborts it and the producer fails with TransactionTimedOutError, not as fenced by another owner", async () => {
  await using broker = await startKafkaBroker();
  const topic = uniqueName("txn.timeout");
  await broker.createTopic(topic, 1);
  const kafka = ourClient(broker.bootstrapServers);
  const producer = await kafka.transactionalProducer(uniqueName("txid"), { transactionTimeoutMs: 1_000 });
  try {
    const txn = await producer.begin();
    await txn.send([{ topic, key: text("k"), value: text("first") }]);
    // The coordinator looks for timed-out transactions every 10 s (the broker's
    // transaction.abort.timed.out.transaction.cleanup.interval.ms): send on until a send is refused.
    let refused: unknown = null;
    for (let i = 0; refused === null && i < 60; i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      await txn.send([{ topic, key: text("k"), value: text(`more ${i}`) }]).catch((e) => refused = e);
    }
    assert(refused instanceof TransactionTimedOutError, `refused with ${refused}`);
    assert(/was open \d+ s, past transaction\.timeout\.ms=1000/.test(refused.message), refused.message);
    await assertRejects(() => producer.begin(), TransactionTimedOutError);
    assertEquals(await committedValues(broker.bootstrapServers, topic), []);
  } finally {
    await producer.close();
  }
});
