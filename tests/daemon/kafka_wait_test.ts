/**
 * The start's wait for Kafka (src/daemon/kafka_wait.ts) against a port that accepts connections and never answers
 * (not Kafka, or a hung broker): it says so while waiting, once the request has gone unanswered for `silenceMs`,
 * instead of staying silent until it gives up; and gives up with the same reason. The real kafkajs client.
 */
import { assertEquals, assertRejects } from "../support/assert.ts";
import { createKafka } from "../../src/kafka/mod.ts";
import { KafkaUnreachableError, waitForKafka } from "../../src/daemon/kafka_wait.ts";
import { logger } from "../../src/observability/log.ts";

Deno.test("waiting for a port that never answers says so while waiting, then gives up naming it", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  const kafka = createKafka(
    {
      brokers: [`127.0.0.1:${port}`],
      clientId: "wait-test",
      requestTimeoutMs: 30_000,
      connectionTimeoutMs: 10_000,
    },
    { log: logger("kafka").child({}, { level: "silent" }) },
  );
  const waiting: string[] = [];
  try {
    const error = await assertRejects(
      () => waitForKafka(kafka, { timeoutMs: 3000, silenceMs: 500, onWaiting: (line) => waiting.push(line) }),
      KafkaUnreachableError,
    );
    const where = `Kafka at 127.0.0.1:${port} (bootstrap.servers)`;
    assertEquals(waiting, [`cannot reach ${where}: the cluster does not answer; retrying for up to 3 s`]);
    assertEquals(error.message, `cannot reach ${where}: the cluster does not answer; gave up after 3 s`);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    for (const conn of held) conn.close();
  }
});
