/**
 * A transaction left hanging on a partition: records of a transactional id that the coordinator does not know of
 * (after a broker paused under an open transaction, its abort did not reach that partition). Made here on purpose
 * on a broker whose transaction verification is off: one transactional Produce without AddPartitionsToTxn, as
 * kafkajs's own internals send it. Read back by kcat (read_committed, and read_uncommitted for what was written).
 *
 * Without `closeOn`, the id's next commit on that partition decides the hanging record as committed: a record
 * nobody committed becomes visible (the broker-pause fault test's 2,909 row versions sent twice). With it, the
 * producer aborts it once initialised, and leaves partitions without an open transaction alone.
 */
import { Kafka, logLevel } from "kafkajs";
import { assertEquals } from "../support/assert.ts";
import { launchKafkaBroker, stopKafkaBroker } from "../support/kafka_broker_process.ts";
import { consumeToEndWithKcat, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { uniqueName } from "../support/kafka_broker.ts";
import { createKafka, type KafkaClient } from "../../src/kafka/mod.ts";

const text = (s: string) => new TextEncoder().encode(s);

/** Initialises `transactionalId` and appends one transactional record to partition 0 without telling its coordinator. */
async function leaveHanging(bootstrapServers: string, transactionalId: string, topic: string): Promise<void> {
  const kafka = new Kafka({ brokers: [bootstrapServers], clientId: "hanging", logLevel: logLevel.NOTHING });
  const createCluster = Object.getOwnPropertySymbols(kafka)
    .find((s) => s.description === "private:Kafka:createCluster")!;
  // deno-lint-ignore no-explicit-any
  const cluster = (kafka as any)[createCluster]({ allowAutoTopicCreation: false });
  await cluster.connect();
  try {
    let id: { producerId: string; producerEpoch: number } | undefined;
    // The transaction coordinator of a broker just started answers "loading" for a while.
    for (let attempt = 0; id === undefined; attempt++) {
      try {
        const coordinator = await cluster.findGroupCoordinator({
          groupId: transactionalId,
          coordinatorType: 1,
        });
        id = await coordinator.initProducerId({ transactionalId, transactionTimeout: 60_000 });
      } catch (e) {
        if (attempt > 100) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await cluster.addTargetTopic(topic);
    const [nodeId] = Object.keys(cluster.findLeaderForPartitions(topic, [0]));
    const leader = await cluster.findBroker({ nodeId });
    await leader.produce({
      transactionalId,
      ...id,
      acks: -1,
      timeout: 5_000,
      topicData: [{
        topic,
        partitions: [{ partition: 0, firstSequence: 0, messages: [{ key: "k", value: "hanging" }] }],
      }],
    });
  } finally {
    await cluster.disconnect();
  }
}

/** Commits one record to partition 0 with a new producer of `transactionalId`, created with `closeOn`. */
async function commitOne(kafka: KafkaClient, transactionalId: string, topic: string, closeOn: string[]) {
  const producer = await kafka.transactionalProducer(transactionalId, {}, closeOn);
  try {
    const txn = await producer.begin();
    await txn.send([{ topic, partition: 0, key: text("k"), value: text("committed") }]);
    await txn.commit();
  } finally {
    await producer.close();
  }
}

Deno.test("a transaction left hanging on a partition: the id's next commit decides it as committed, unless the new producer aborts it first (closeOn)", async () => {
  const broker = await launchKafkaBroker({
    serverProperties: { "transaction.partition.verification.enable": false },
  });
  try {
    const kafka = createKafka({
      brokers: [broker.bootstrapServers],
      clientId: "hanging-test",
      requestTimeoutMs: 10_000,
      connectionTimeoutMs: 3_000,
    });
    const admin = await kafka.admin();
    const values = async (topic: string, readCommitted: boolean) =>
      (await readTopicWithKcat(broker.bootstrapServers, topic, { readCommitted })).map((r) => r.value);
    try {
      const plain = uniqueName("hanging.plain");
      await admin.createTopic(plain, { partitions: 1, replicationFactor: 1 });
      await leaveHanging(broker.bootstrapServers, "tx-plain", plain);
      assertEquals((await admin.fetchTopicOffsets(plain))[0].high, 0, "the hanging record holds the LSO");
      await commitOne(kafka, "tx-plain", plain, []);
      assertEquals(await values(plain, true), ["hanging", "committed"], "decided by the next commit marker");

      const closed = uniqueName("hanging.closed");
      await admin.createTopic(closed, { partitions: 2, replicationFactor: 1 });
      await leaveHanging(broker.bootstrapServers, "tx-closed", closed);
      await commitOne(kafka, "tx-closed", closed, [closed, uniqueName("not.created.yet")]);
      assertEquals(await values(closed, true), ["committed"]);
      // read_uncommitted: the hanging record, the one record that ended it (aborted), the committed one; nothing
      // on partition 1, which held no open transaction.
      const uncommitted = await consumeToEndWithKcat(broker.bootstrapServers, closed, [
        "-X",
        "isolation.level=read_uncommitted",
        "-f",
        "%p:%k\n",
      ]);
      assertEquals(
        new TextDecoder().decode(uncommitted).trim().split("\n").sort(),
        ["0:k", "0:k", "0:tablesync.fence"],
      );
    } finally {
      await admin.close();
    }
  } finally {
    await stopKafkaBroker(broker);
  }
});
