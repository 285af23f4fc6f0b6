/**
 * The broker killed (kill -9) under a backfill and a live writer, and started again on the same data and port
 * 30 s later: routine maintenance for an operator. Three daemons at once (tests/support/broker_faults.ts):
 * - at-least-once and exactly-once with Kafka's defaults: each send is retried for delivery.timeout.ms (2 minutes,
 *   as Kafka's Java producer does), so the task stays RUNNING, showing the outage in its status;
 * - at-least-once with producer.override.delivery.timeout.ms=10000, shorter than the outage: the task fails with
 *   one message once that time is out, and the daemon restarts it by itself (with backoff) until Kafka is back.
 * In each: no row lost, no duplicate with exactly-once and a bounded number without, a few log lines about the
 * outage and no stack trace per reconnect, memory bounded. Takes about 1.5 minutes: the outage itself is 30 s.
 */
import { assertEquals } from "../support/assert.ts";
import { killBroker, runBrokerFault } from "../support/broker_faults.ts";
import { restartKafkaBroker } from "../support/kafka_broker_process.ts";
import { assertFaultSurvived } from "./_fault_run.ts";

const OUTAGE_MS = 30_000;
const SHORT_DELIVERY_TIMEOUT_MS = 10_000;

Deno.test({
  name:
    "broker kill -9, restarted on its data and port after 30 s: nothing lost, tasks recover by themselves",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const figures = await runBrokerFault({
      name: "broker kill -9, restarted after 30 s",
      variants: [
        { mode: "at-least-once" },
        { mode: "exactly-once" },
        {
          mode: "at-least-once",
          label: `at-least-once, delivery.timeout.ms=${SHORT_DELIVERY_TIMEOUT_MS}`,
          connector: { "producer.override.delivery.timeout.ms": SHORT_DELIVERY_TIMEOUT_MS },
        },
      ],
      async inject(broker) {
        await killBroker(broker);
        await new Promise((r) => setTimeout(r, OUTAGE_MS));
        return await restartKafkaBroker(broker);
      },
    });
    assertEquals(figures.length, 3);
    assertFaultSurvived(figures[0]);
    assertFaultSurvived(figures[1]);
    assertFaultSurvived(figures[2], { restartedByDaemon: true });
  },
});
