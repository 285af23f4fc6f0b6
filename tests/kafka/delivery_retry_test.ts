/**
 * retryUntilDelivered: a send that cannot reach the cluster is retried with growing backoff until it succeeds or
 * delivery.timeout.ms has passed (then one error naming the limit and the fault); an answer about the request
 * itself fails at once; a later send waits for an earlier one being retried (per-key order). The attempts are
 * functions that throw kafkajs's own error classes.
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import kafkajs from "kafkajs";
import { DeliveryTimeoutError, retryUntilDelivered } from "../../src/kafka/delivery_retry.ts";
import { isUnreachable, KafkaOutage } from "../../src/kafka/outage.ts";
import {
  DEFAULT_PRODUCER_OPTIONS,
  KafkajsProducerAdapter,
  type KafkajsSender,
} from "../../src/kafka/producer.ts";
import { logger } from "../../src/observability/log.ts";
import { sleep } from "../support/wait.ts";

// kafkajs's error classes are on its CommonJS exports object, not named ESM exports.
const { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } =
  kafkajs as unknown as Record<
    string,
    new (...args: unknown[]) => Error
  >;

const limits = {
  deliveryTimeoutMs: 2_000,
  retryBackoffMs: 10,
  retryBackoffMaxMs: 50,
  retries: Number.MAX_SAFE_INTEGER,
};

const refused = () =>
  new KafkaJSNumberOfRetriesExceeded(
    new KafkaJSConnectionError("Connection error: connect ECONNREFUSED 127.0.0.1:1"),
    { retryCount: 5, retryTime: 1000 },
  );

Deno.test("delivery retry: connection faults are retried until the send succeeds", async () => {
  let attempts = 0;
  const result = await retryUntilDelivered(() => {
    attempts++;
    return attempts < 5 ? Promise.reject(refused()) : Promise.resolve("acked");
  }, limits);
  assertEquals(result, "acked");
  assertEquals(attempts, 5);
});

Deno.test("delivery retry: gives up after delivery.timeout.ms with one error naming the fault and the limit", async () => {
  let attempts = 0;
  const error = await assertRejects(() =>
    retryUntilDelivered(() => {
      attempts++;
      return Promise.reject(refused());
    }, { ...limits, deliveryTimeoutMs: 300 })
  );
  assert(error instanceof DeliveryTimeoutError, String(error));
  assert(
    /ECONNREFUSED/.test(error.message) && /delivery\.timeout\.ms=300/.test(error.message),
    error.message,
  );
  assert(attempts > 3, `only ${attempts} attempts`);
  assert(
    isUnreachable(error),
    "a delivery timeout counts as Kafka out of reach (the daemon restarts the task)",
  );
});

Deno.test("delivery retry: an explicit retries count bounds the attempts", async () => {
  let attempts = 0;
  const error = await assertRejects(() =>
    retryUntilDelivered(() => {
      attempts++;
      return Promise.reject(refused());
    }, { ...limits, retries: 2 })
  );
  assertEquals(attempts, 3);
  assert(/retries=2/.test(error.message), error.message);
});

Deno.test("delivery retry: an answer about the request itself fails at once", async () => {
  let attempts = 0;
  const denied = new KafkaJSProtocolError({
    message: "Topic authorization failed",
    type: "TOPIC_AUTHORIZATION_FAILED",
  });
  const error = await assertRejects(() =>
    retryUntilDelivered(() => {
      attempts++;
      return Promise.reject(denied);
    }, limits)
  );
  assertEquals(attempts, 1);
  assertEquals(error, denied);
});

Deno.test("delivery retry: an attempt that never answers ends at delivery.timeout.ms", async () => {
  const error = await assertRejects(() =>
    retryUntilDelivered(() => new Promise<never>(() => {}), { ...limits, deliveryTimeoutMs: 200 })
  );
  assert(error instanceof DeliveryTimeoutError, String(error));
  assert(/no answer/.test(error.message), error.message);
});

Deno.test("delivery retry: an attempt cut off at the deadline names the outage's reason the client saw", async () => {
  const outage = new KafkaOutage(logger("kafka"), "delivery.timeout.ms=200", () => {});
  outage.unreachable("127.0.0.1:9092", "ECONNREFUSED");
  const error = await assertRejects(() =>
    retryUntilDelivered(() => new Promise<never>(() => {}), { ...limits, deliveryTimeoutMs: 200 }, outage)
  );
  assert(/\(ECONNREFUSED\)/.test(error.message), error.message);
});

Deno.test("delivery retry: a later send waits for an earlier one being retried, so one key's records land in order", async () => {
  let up = false;
  const landed: string[] = [];
  let next = 0;
  const sender = {
    sendBatch(
      batch: { topicMessages: { topic: string; messages: { value: unknown; partition?: number }[] }[] },
    ) {
      if (!up) return Promise.reject(refused());
      return Promise.resolve(batch.topicMessages.map(({ topic, messages }) => {
        landed.push(...messages.map((m) => String(m.value)));
        const baseOffset = String(next);
        next += messages.length;
        return { topicName: topic, partition: 0, errorCode: 0, baseOffset };
      }));
    },
  };
  const producer = new KafkajsProducerAdapter(
    sender as unknown as KafkajsSender,
    { ...DEFAULT_PRODUCER_OPTIONS, retryBackoffMs: 50, retryBackoffMaxMs: 2_000, deliveryTimeoutMs: 20_000 },
    logger("kafka"),
  );
  const version = (v: string) => ({
    topic: "orders",
    partition: 0,
    key: new TextEncoder().encode("row-1"),
    value: new TextEncoder().encode(v),
  });
  // The first version's send fails and backs off (retries after 50, 150, 350, 750, 1550 ms); the second version
  // is sent while it waits, and Kafka is back before the second's first retry and long before the first's next.
  const first = producer.send([version("v1")]);
  await sleep(760);
  const second = producer.send([version("v2")]);
  await sleep(40);
  up = true;
  await Promise.all([first, second]);
  assertEquals(landed, ["v1", "v2"]);
});
