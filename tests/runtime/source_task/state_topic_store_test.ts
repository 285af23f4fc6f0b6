/**
 * The reconcile state topic on the real broker (src/runtime/source_task/state_topic_store.ts): created compacted
 * with the partitions asked for, entries written to the partition each names, the backlog counting what Kafka has
 * not acknowledged yet, one partition read alone in offset order with its tombstones, and a topic with another
 * partition count refused with the fix.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { createKafka } from "../../../src/kafka/mod.ts";
import { logger } from "../../../src/observability/log.ts";
import { openStateTopic } from "../../../src/runtime/source_task/state_topic_store.ts";

Deno.test("state topic: compacted, written by partition, backlog until acknowledged, one partition read alone", async () => {
  await using broker = await startKafkaBroker();
  const kafka = createKafka({
    brokers: [broker.bootstrapServers],
    clientId: "state-test",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  });
  const producer = await kafka.producer({});
  const topic = uniqueName("state");
  const log = logger("state-test");
  const state = await openStateTopic(kafka, producer, topic, 4, log);
  try {
    assertEquals((await broker.topicConfig(topic))["cleanup.policy"], "compact");
    const entries = Array.from({ length: 2500 }, (_, i) => ({
      partition: i % 4,
      key: `t|${String(i).padStart(5, "0")}`,
      value: `v${i}`,
    }));
    state.write(entries);
    state.write([{ partition: 1, key: "t|00001", value: null }, {
      partition: 1,
      key: "t|00005",
      value: "again",
    }]);
    assert(state.backlog() > 0, "written entries wait for their acknowledgement");
    await state.flush();
    assertEquals(state.backlog(), 0);

    const seen: [string, string | null][] = [];
    await state.readPartition(1, (key, value) => void seen.push([key, value]));
    const written = entries.filter((e) => e.partition === 1).map((
      e,
    ): [string, string | null] => [e.key, e.value]);
    assertEquals(seen, [...written, ["t|00001", null], ["t|00005", "again"]]);

    const other = await openStateTopic(kafka, producer, topic, 8, log).catch((e) => e as Error);
    assert(other instanceof Error);
    assertStringIncludes(
      other.message,
      `state topic ${topic} has 4 partitions, not the 8 it needs: delete it`,
    );
  } finally {
    await state.close();
    await producer.close();
  }
});
