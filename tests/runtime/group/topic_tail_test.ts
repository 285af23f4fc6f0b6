/**
 * TopicTail (src/runtime/group/topic_tail.ts) against the real broker: a second tail started on a topic already
 * written reads it from its beginning in partition order; `readToEnd` waits for what was written before it was
 * called, `waitFor` for one offset; the topic's checks (missing, created compacted, more than one partition)
 * fail with the worker key in the message.
 */
import { kafkaClient } from "../../support/task_start.ts";
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import type { ConsumedRecord } from "../../../src/kafka/mod.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import {
  jsonValue,
  keyText,
  TopicTail,
  type TopicTailOptions,
} from "../../../src/runtime/group/topic_tail.ts";

setLogLevel("error");

/** A tail of `topic` that records what it applied as `key=value`. */
function recordingTail(broker: KafkaBroker, topic: string, options: Partial<TopicTailOptions> = {}) {
  const applied: string[] = [];
  const tail = new TopicTail(kafkaClient(broker.bootstrapServers), {
    topic,
    setting: "config.storage.topic",
    purpose: "tail-test",
    apply: (record: ConsumedRecord) =>
      applied.push(`${keyText(record)}=${JSON.stringify(jsonValue(record))}`),
    ...options,
  });
  return { tail, applied };
}

Deno.test({
  name: "a tail reads the topic from its beginning in order; readToEnd and waitFor wait for what was written",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await startKafkaBroker();
    const topic = uniqueName("tail");
    await broker.createTopic(topic, 1, 1, { "cleanup.policy": "compact" });
    const writer = recordingTail(broker, topic, { singlePartition: true });
    await writer.tail.start();
    try {
      assertEquals(writer.applied, [], "an empty topic is read to its end at once");
      await writer.tail.write([{ key: "a", value: { n: 1 } }, { key: "b", value: null }, {
        key: "a",
        value: 2,
      }]);
      await writer.tail.readToEnd();
      assertEquals(writer.applied, ['a={"n":1}', "b=null", "a=2"]);
      assertEquals(writer.tail.position(0), 3);

      // A member starting later reads everything written before it, in order, before start() resolves.
      const reader = recordingTail(broker, topic);
      await reader.tail.start();
      try {
        assertEquals(reader.applied, ['a={"n":1}', "b=null", "a=2"]);
        const [ack] = await writer.tail.write([{ key: "c", value: "late" }]);
        await reader.tail.waitFor(ack.partition, ack.offset);
        assertEquals(reader.applied.at(-1), 'c="late"');
        assertEquals(reader.tail.position(0), ack.offset + 1);
      } finally {
        await reader.tail.close();
      }
    } finally {
      await writer.tail.close();
    }
  },
});

Deno.test({
  name: "a missing topic is an error naming its key, or created compacted; a second partition is refused",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await startKafkaBroker();
    const missing = recordingTail(broker, uniqueName("tail-missing"));
    const error = await assertRejects(() => missing.tail.start());
    await missing.tail.close();
    assert(error.message.includes("(config.storage.topic) does not exist"), error.message);
    assert(error.message.includes("cleanup.policy=compact"), error.message);

    const created = uniqueName("tail-created");
    const creating = recordingTail(broker, created, {
      create: { partitions: 1, replicationFactor: -1, settings: "config.storage.replication.factor" },
    });
    await creating.tail.start();
    await creating.tail.close();
    const admin = await kafkaClient(broker.bootstrapServers).admin();
    try {
      assertEquals((await admin.partitionsFor(created)).length, 1);
    } finally {
      await admin.close();
    }

    const wide = uniqueName("tail-wide");
    await broker.createTopic(wide, 2, 1, { "cleanup.policy": "compact" });
    const single = recordingTail(broker, wide, { singlePartition: true });
    const refused = await assertRejects(() => single.tail.start());
    await single.tail.close();
    assert(refused.message.includes("has 2 partitions; it must have exactly 1"), refused.message);
  },
});
