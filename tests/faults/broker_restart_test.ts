/**
 * The broker killed (kill -9) under a backfill and a live writer, and started again on the same data and port
 * 30 s later: routine maintenance for an operator. In at-least-once and exactly-once mode at once (two daemons,
 * tests/support/broker_faults.ts): no row lost, no duplicate with exactly-once and a bounded number without, the
 * task never FAILED (it keeps retrying for delivery.timeout.ms, like Kafka's Java producer), a few log lines about
 * the outage and no stack trace per reconnect, memory bounded. Takes about 1.5 minutes: the outage itself is 30 s.
 */
import { assertEquals } from "../support/assert.ts";
import { type FaultFigures, killBroker, runBrokerFault } from "../support/broker_faults.ts";
import { restartKafkaBroker } from "../support/kafka_broker_process.ts";
import { assertFaultSurvived } from "./_fault_run.ts";

const OUTAGE_MS = 30_000;

Deno.test({
  name:
    "broker kill -9, restarted on its data and port after 30 s: nothing lost, tasks recover by themselves",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const figures: FaultFigures[] = await runBrokerFault({
      name: "broker kill -9, restarted after 30 s",
      async inject(broker) {
        await killBroker(broker);
        await new Promise((r) => setTimeout(r, OUTAGE_MS));
        return await restartKafkaBroker(broker);
      },
    });
    assertEquals(figures.length, 2);
    for (const f of figures) assertFaultSurvived(f);
  },
});
