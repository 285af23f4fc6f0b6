/**
 * The topic store against the librdkafka mock cluster. The mock cannot create topics through the Admin API, so
 * each test creates its offsets topic on the mock. Records that stand for a Java Connect worker are produced
 * with the Kafka layer's producer; what we wrote is checked with kcat, independently of the code under test.
 */
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { createKafka, type KafkaClient, type ProducedRecord } from "../../../src/kafka/mod.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { KafkaOffsetLog } from "../../../src/runtime/offsets/kafka_offset_log.ts";
import { TopicOffsetStore } from "../../../src/runtime/offsets/topic_store.ts";
import { readTopicWithKcat } from "../../support/kafka_helpers.ts";
import { type KafkaMock, startKafkaMock } from "../../support/kafka_mock.ts";

setLogLevel("error");

const TOPIC = "connect-offsets";
const enc = (s: string) => new TextEncoder().encode(s);

function kafkaFor(mock: KafkaMock): KafkaClient {
  return createKafka({
    brokers: mock.bootstrapServers.split(","),
    clientId: "offsets-test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
}

async function openStore(kafka: KafkaClient): Promise<TopicOffsetStore> {
  const store = new TopicOffsetStore({
    log: new KafkaOffsetLog(kafka, { topic: TOPIC, readTimeoutMs: 30_000 }),
    flushDelayMs: 60_000,
  });
  await store.start();
  return store;
}

/** Produces records as another writer (a Java Connect worker) would. */
async function produceForeign(kafka: KafkaClient, records: Omit<ProducedRecord, "topic">[]): Promise<void> {
  const producer = await kafka.producer();
  try {
    await producer.send(records.map((r) => ({ topic: TOPIC, ...r })));
  } finally {
    await producer.close();
  }
}

Deno.test("topic store: writes Connect's key and value bytes, tombstones as null values", async () => {
  await using mock = startKafkaMock();
  mock.createTopic(TOPIC, 5, 1);
  const store = await openStore(kafkaFor(mock));
  store.set("jira", [{ partition: { table: "incident" }, offset: { position: 30 } }]);
  store.set("jira", [{ partition: { table: "problem" }, offset: null }]);
  await store.flush();
  await store.close();

  const records = await readTopicWithKcat(mock.bootstrapServers, TOPIC);
  assertEquals(records.map((r) => [r.key, r.value]).sort(), [
    [`["jira",{"table":"incident"}]`, `{"position":30}`],
    [`["jira",{"table":"problem"}]`, null],
  ]);
});

Deno.test("topic store: reopening reads every partition, last write wins, tombstones delete", async () => {
  await using mock = startKafkaMock();
  mock.createTopic(TOPIC, 5, 1);
  const kafka = kafkaFor(mock);
  const first = await openStore(kafka);
  assertEquals(first.getAll("jira"), []);
  const tables = Array.from({ length: 12 }, (_, i) => `table${i}`);
  for (let round = 1; round <= 3; round++) {
    first.set("jira", tables.map((table) => ({ partition: { table }, offset: { round, table } })));
    first.set("other", [{ partition: { table: "x" }, offset: { round } }]);
    await first.flush();
  }
  first.set("jira", [{ partition: { table: "table0" }, offset: null }, {
    partition: { table: "table1" },
    offset: null,
  }]);
  await first.close();

  const written = await readTopicWithKcat(mock.bootstrapServers, TOPIC);
  assert(
    new Set(written.map((r) => r.partition)).size > 1,
    "the keys must spread over several partitions",
  );

  const second = await openStore(kafka);
  const jira = second.getAll("jira").sort((a, b) =>
    String(a.partition.table).localeCompare(String(b.partition.table))
  );
  assertEquals(
    jira,
    tables.slice(2).sort().map((table) => ({ partition: { table }, offset: { round: 3, table } })),
  );
  assertEquals(second.get("jira", { table: "table0" }), undefined);
  assertEquals(second.get("other", { table: "x" }), { round: 3 });

  // Deleting and setting again works across a reopen too.
  second.set("jira", [{ partition: { table: "table0" }, offset: { round: 4 } }]);
  await second.close();
  const third = await openStore(kafka);
  assertEquals(third.get("jira", { table: "table0" }), { round: 4 });
  await third.close();
});

Deno.test("topic store: a key written by Java Connect (other field order, whitespace) is matched and updated in place", async () => {
  await using mock = startKafkaMock();
  mock.createTopic(TOPIC, 5, 1);
  const kafka = kafkaFor(mock);
  const javaKey = `["jira", {"shard": 1, "table": "incident"}]`;
  await produceForeign(kafka, [{ key: enc(javaKey), value: enc(`{"ts": "from-java", "n": 1.0}`) }]);

  const store = await openStore(kafka);
  assertEquals(store.get("jira", { table: "incident", shard: 1 }), { ts: "from-java", n: 1 });
  assertEquals(store.getAll("jira").length, 1);
  store.set("jira", [{ partition: { table: "incident", shard: 1 }, offset: { ts: "ours", n: 2 } }]);
  await store.close();

  const records = await readTopicWithKcat(mock.bootstrapServers, TOPIC);
  assertEquals(records.length, 2);
  assertEquals(records[1].key, javaKey, "our write reuses the stored key bytes...");
  assertEquals(
    records[1].partition,
    records[0].partition,
    "...so it lands in the same partition and compacts",
  );

  const reopened = await openStore(kafka);
  assertEquals(reopened.getAll("jira"), [{
    partition: { shard: 1, table: "incident" },
    offset: { ts: "ours", n: 2 },
  }]);
  await reopened.close();
});

Deno.test("topic store: one key spelled differently in two partitions: the later timestamp wins", async () => {
  await using mock = startKafkaMock();
  mock.createTopic(TOPIC, 4, 1);
  const kafka = kafkaFor(mock);
  await produceForeign(kafka, [
    // The older write is in the higher partition and was read last: read order must not decide.
    { partition: 0, timestamp: 2_000, key: enc(`["jira",{"a":1,"b":2}]`), value: enc(`{"v":"new"}`) },
    { partition: 3, timestamp: 1_000, key: enc(`["jira",{"b":2,"a":1}]`), value: enc(`{"v":"old"}`) },
    { partition: 1, timestamp: 1_000, key: enc(`["jira",{"t":"x"}]`), value: enc(`{"v":"old"}`) },
    { partition: 2, timestamp: 2_000, key: enc(`["jira", {"t": "x"}]`), value: null },
  ]);
  const store = await openStore(kafka);
  assertEquals(store.getAll("jira"), [{ partition: { a: 1, b: 2 }, offset: { v: "new" } }]);
  await store.close();
});

Deno.test("topic store: records that are not Connect offsets are ignored; the rest loads", async () => {
  await using mock = startKafkaMock();
  mock.createTopic(TOPIC, 1, 1);
  const kafka = kafkaFor(mock);
  await produceForeign(kafka, [
    { key: enc(`["jira",{"t":"good"}]`), value: enc(`{"n":1}`) },
    { key: null, value: enc(`{"n":2}`) },
    { key: enc(`not json`), value: enc(`{"n":3}`) },
    { key: enc(`["jira",{"t":"x"},"extra"]`), value: enc(`{"n":4}`) },
    { key: enc(`[42,{"t":"x"}]`), value: enc(`{"n":5}`) },
    { key: enc(`["jira","t"]`), value: enc(`{"n":6}`) },
    { key: enc(`{"connector":"jira"}`), value: enc(`{"n":7}`) },
    { key: enc(`["jira",{"t":"bad-value"}]`), value: enc(`42`) },
    { key: enc(`["jira",{"t":"bad-json"}]`), value: enc(`{"n":`) },
  ]);
  const store = await openStore(kafka);
  assertEquals(store.getAll("jira"), [{ partition: { t: "good" }, offset: { n: 1 } }]);
  await store.close();
});

Deno.test("topic store on librdkafka's mock (no CreateTopics API): a missing topic that the cluster cannot create stops start() with a clear error", async () => {
  await using mock = startKafkaMock();
  const store = new TopicOffsetStore({
    log: new KafkaOffsetLog(kafkaFor(mock), { topic: "no-such-offsets" }),
  });
  await assertRejects(
    () => store.start(),
    Error,
    /The offsets topic "no-such-offsets" does not exist and this cluster cannot create it .*cleanup\.policy=compact/,
  );
});

Deno.test("topic store: refresh takes other writers' offsets and tombstones, keeps this store's unwritten changes", async () => {
  await using mock = startKafkaMock();
  mock.createTopic(TOPIC, 5, 1);
  const kafka = kafkaFor(mock);
  const previousOwner = await openStore(kafka);
  const successor = await openStore(kafka);
  previousOwner.set("jira", [
    { partition: { table: "incident" }, offset: { position: 41 } },
    { partition: { table: "problem" }, offset: { position: 7 } },
  ]);
  await previousOwner.flush();
  successor.set("jira", [{ partition: { table: "problem" }, offset: { position: 9 } }]);
  successor.set("jira", [{ partition: { table: "change" }, offset: { position: 3 } }]);
  await successor.flush();
  previousOwner.set("jira", [{ partition: { table: "change" }, offset: null }]);
  await previousOwner.flush();
  // Not written yet: a refresh must not replace it with the topic's older value.
  successor.set("jira", [{ partition: { table: "problem" }, offset: { position: 10 } }]);

  await successor.refresh();
  assertEquals(successor.get("jira", { table: "incident" }), { position: 41 });
  assertEquals(successor.get("jira", { table: "problem" }), { position: 10 });
  assertEquals(successor.get("jira", { table: "change" }), undefined);
  await Promise.all([previousOwner.close(), successor.close()]);
});
