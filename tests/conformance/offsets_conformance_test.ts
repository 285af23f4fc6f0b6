/**
 * Our offsets-topic records against a Kafka Connect worker's: for each source partition and offset, the key and
 * value bytes our topic store writes to the real broker equal what Connect's OffsetStorageWriter hands to its
 * offsets topic (internal JsonConverter, schemas disabled; key `["<connector>",{partition}]`). The Java side gets
 * the maps in the same field order, as a connector building them with a LinkedHashMap would.
 */
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { createKafka } from "../../src/kafka/mod.ts";
import { setLogLevel } from "../../src/observability/log.ts";
import { KafkaOffsetLog } from "../../src/runtime/offsets/kafka_offset_log.ts";
import { TopicOffsetStore } from "../../src/runtime/offsets/topic_store.ts";
import type { SourceOffset, SourcePartition } from "../../src/connect/record.ts";
import { startConnectHarness } from "./connect_harness.ts";

setLogLevel("error");

/**
 * [connector, partition, offset] as sources write them (primitive values only, as Connect's OffsetUtils requires);
 * a null offset is a deleted partition (tombstone).
 */
const CASES: Array<[string, SourcePartition, SourceOffset | null]> = [
  ["incidents", { table: "incident" }, { timestamp: "2024-05-01 10:00:00", sys_id: "0a1b2c" }],
  ["incidents", { table: "problem", instance: "dev1.example.com" }, {
    timestamp: "2024-05-01 10:00:01",
    sys_id: "f",
  }],
  ["views", { view: "incident_sla", query: "active=true^priority<=2" }, {
    timestamp: "x",
    sys_id: "y",
    seq: 7,
  }],
  ["unicode", { table: 'Zoë – 東京 😀 "q" \\ \u0001' }, { note: "tab\there\nnewline", sys_id: "😀" }],
  ["numbers", { shard: 3 }, { position: 9007199254740991, ratio: 1.5, small: -2, on: true, none: null }],
  ["deleted", { table: "gone" }, null],
];

Deno.test("offsets topic records equal a Connect worker's OffsetStorageWriter output", async () => {
  await using kafka = await startKafkaBroker();
  await using connect = await startConnectHarness();
  const topic = uniqueName("offsets-conformance");
  const client = createKafka({
    brokers: [kafka.bootstrapServers],
    clientId: "offsets-conformance",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  const store = new TopicOffsetStore({
    log: new KafkaOffsetLog(client, { topic, partitions: 3, replicationFactor: 1, readTimeoutMs: 30_000 }),
    flushDelayMs: 60_000,
  });
  await store.start();
  try {
    for (const [connector, partition, offset] of CASES) store.set(connector, [{ partition, offset }]);
    await store.flush();
  } finally {
    await store.close();
  }

  const written = await consumeAll(kafka.bootstrapServers, topic, { expected: CASES.length });
  const ours = new Map(written.map((r) => [r.key, r.value]));
  for (const [connector, partition, offset] of CASES) {
    const theirs = await connect.request({ op: "offset", connector, partition, offset });
    assertEquals(
      ours.has(theirs.key),
      true,
      `no record with Connect's key ${theirs.key}; ours: ${[...ours.keys()]}`,
    );
    assertEquals(ours.get(theirs.key), theirs.value, `value for ${theirs.key}`);
  }
  assertEquals(written.length, CASES.length);
});
