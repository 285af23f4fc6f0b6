/**
 * The sink driver (src/runtime/sink_task/sink_driver.ts) against the real broker, with a task of the test's own
 * that records what it is given: records reach `put` converted, in offset order; a RetriableException makes the
 * driver hand the same records again; the graceful stop lets a `put` underway finish, and the offsets committed
 * are exactly what `preCommit` said was handled, so the next consumer of the group resumes there.
 */
import { asStrings, environmentHooks, startMessage } from "../../support/task_start.ts";
import { assertEquals } from "../../support/assert.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { produceWithKcat } from "../../support/kafka_helpers.ts";
import { sinkConnectorConfig } from "../../support/sink_connector.ts";
import { waitFor } from "../../support/wait.ts";
import type { SinkRecord } from "../../../src/connect/record.ts";
import {
  RetriableException,
  type SinkTask,
  type TopicPartitionOffset,
} from "../../../src/connect/task_api.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { SinkDriver } from "../../../src/runtime/sink_task/sink_driver.ts";
import { taskEnvironment } from "../../../src/runtime/task/task_environment.ts";

setLogLevel("error");

/** A sink task that keeps the values it was given and reports handled all but the records `holdBack` names. */
class RecordingTask implements SinkTask {
  readonly values: string[] = [];
  /** Values a put began with (before the gate). */
  readonly entered: string[] = [];
  /** Fails the first put of a record with this value once, retriably. */
  failOnce: string | null = null;
  /** Offsets (exclusive) preCommit reports at most, per partition; unset: everything consumed. */
  holdBackFrom: number | null = null;
  /** A put waits for this before it returns (the graceful stop must wait for it). */
  gate: Promise<void> = Promise.resolve();

  start(): Promise<void> {
    return Promise.resolve();
  }
  async put(records: SinkRecord[]): Promise<void> {
    if (this.failOnce !== null && records.some((r) => r.value === this.failOnce)) {
      this.failOnce = null;
      throw new RetriableException("instance busy");
    }
    for (const r of records) this.entered.push(String(r.value));
    await this.gate;
    for (const r of records) this.values.push(String(r.value));
  }
  preCommit(consumed: TopicPartitionOffset[]): Promise<TopicPartitionOffset[]> {
    const hold = this.holdBackFrom;
    return Promise.resolve(
      consumed.map((c) => hold === null ? c : { ...c, offset: Math.min(c.offset, hold) }),
    );
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

/** A driver for `task` on `topic`, built from a sink task environment as the task builder does. */
async function driverFor(broker: KafkaBroker, topic: string, groupId: string, task: SinkTask) {
  const taskConfig = asStrings(sinkConnectorConfig("http://127.0.0.1:1", "pw-Driver-Wren-3", {
    name: "driver-test",
    topics: topic,
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
  }));
  const env = await taskEnvironment(
    startMessage("sink", taskConfig, { "bootstrap.servers": broker.bootstrapServers }),
    environmentHooks(),
  );
  const driver = new SinkDriver({
    task,
    kafka: env.kafka,
    subscription: { topics: [topic] },
    groupId,
    consumerOptions: { ...env.kafkaOptions.consumer, autoOffsetReset: "earliest" },
    converters: env.converters,
    transforms: { apply: (r) => r },
    errors: env.errors,
    logger: env.log,
    metrics: env.metrics,
    commitIntervalMs: 60_000,
    maxRetryBackoffMs: 10,
    warnings: env.warnings,
  });
  return { driver, env };
}

/** The group's committed offset of partition 0 of `topic`. */
async function committedOffset(broker: KafkaBroker, groupId: string, topic: string): Promise<number[]> {
  const { env } = await driverFor(broker, topic, groupId, new RecordingTask());
  const admin = await env.kafka.admin();
  try {
    return (await admin.fetchCommittedOffsets(groupId, [topic])).map((c) => c.offset);
  } finally {
    await admin.close();
  }
}

Deno.test({
  name:
    "sink driver: records in order, a retriable put redelivered, commits exactly what preCommit allows, the graceful stop waits for a put",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await startKafkaBroker();
    const topic = uniqueName("driver");
    const groupId = uniqueName("driver-group");
    await broker.createTopic(topic, 1);
    await produceWithKcat(broker.bootstrapServers, topic, ["r0", "r1", "r2", "r3"], false);

    const first = new RecordingTask();
    first.failOnce = "r0";
    first.holdBackFrom = 3; // r3 is not handled yet: it must not be committed
    const one = await driverFor(broker, topic, groupId, first);
    const running = one.driver.run();
    await waitFor(() => first.values.length >= 4, 60_000, "the four records put");
    one.driver.stop();
    await running;
    assertEquals(first.values, ["r0", "r1", "r2", "r3"], "in order, r0 once after its retriable failure");
    assertEquals(
      await committedOffset(broker, groupId, topic),
      [3],
      "what preCommit allowed, not what was consumed",
    );

    // The group resumes at r3. A put underway when stop() comes is waited for, and the final commit covers it.
    const second = new RecordingTask();
    const release = Promise.withResolvers<void>();
    second.gate = release.promise;
    await produceWithKcat(broker.bootstrapServers, topic, ["r4"], false);
    const two = await driverFor(broker, topic, groupId, second);
    const again = two.driver.run();
    await waitFor(() => second.entered.includes("r4"), 60_000, "a put of r4 underway");
    two.driver.stop();
    setTimeout(() => release.resolve(), 200);
    await again;
    assertEquals(second.values, ["r3", "r4"]);
    assertEquals(await committedOffset(broker, groupId, topic), [5]);
  },
});
