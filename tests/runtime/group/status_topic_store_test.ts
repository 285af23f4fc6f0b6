/**
 * The status topic carries a task's warnings to the other members (an extra `warnings` field in Connect's status
 * value, only when there are some), on the real broker.
 */
import { assertEquals } from "../../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { waitFor } from "../../support/daemon_process.ts";
import { consumeAll } from "../../support/kafka_helpers.ts";
import { createKafka } from "../../../src/kafka/mod.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { StatusTopicStore } from "../../../src/runtime/group/status_topic_store.ts";

setLogLevel("error");

Deno.test({
  name: "status topic: a task's warnings reach the other member, and are left out once gone",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using broker = await startKafkaBroker();
    const topic = uniqueName("statuses");
    const kafka = createKafka({
      brokers: [broker.bootstrapServers],
      clientId: "t",
      requestTimeoutMs: 10_000,
      connectionTimeoutMs: 3_000,
    });
    const [writer, reader] = [1, 2].map(() =>
      new StatusTopicStore(kafka, topic, { partitions: 1, replicationFactor: -1 })
    );
    try {
      await Promise.all([writer.start(), reader.start()]);
      const warnings = ["waiting for topic orders.in to exist (checked every 5 s)"];
      writer.putTask("sink", 0, { state: "RUNNING", workerId: "a:8083", warnings }, 1);
      await waitFor(() => reader.task("sink", 0)?.warnings !== undefined, 30_000, "the warnings read back");
      assertEquals(reader.task("sink", 0), { state: "RUNNING", workerId: "a:8083", warnings });
      writer.putTask("sink", 0, { state: "RUNNING", workerId: "a:8083", warnings: [] }, 1);
      await waitFor(() => reader.task("sink", 0)?.warnings === undefined, 30_000, "the warnings cleared");
      const values = (await consumeAll(broker.bootstrapServers, topic, { expected: 2, timeoutMs: 30_000 }))
        .map((r) => JSON.parse(r.value!));
      assertEquals(values, [
        { state: "RUNNING", trace: null, worker_id: "a:8083", generation: 1, warnings },
        { state: "RUNNING", trace: null, worker_id: "a:8083", generation: 1 },
      ]);
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  },
});
