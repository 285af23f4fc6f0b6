/**
 * The broker paused (SIGSTOP) for 60 s under a backfill and a live writer, then resumed: a hung broker or a
 * network split, connections accepted and nothing answered. In at-least-once and exactly-once mode at once (two
 * daemons, tests/support/broker_faults.ts): no row lost, no duplicate with exactly-once and a bounded number
 * without, the task never left FAILED, a few log lines about the outage and no stack trace per retry, memory
 * bounded.
 * Takes about 2 minutes: the pause itself is 60 s.
 */
import { assertEquals } from "../support/assert.ts";
import { pauseBroker, runBrokerFault } from "../support/broker_faults.ts";
import { assertFaultSurvived } from "./_fault_run.ts";

const PAUSE_MS = 60_000;

Deno.test({
  name: "broker paused (SIGSTOP) for 60 s, then resumed: nothing lost, tasks carry on by themselves",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const figures = await runBrokerFault({
      name: "broker SIGSTOP 60 s",
      async inject(broker) {
        pauseBroker(broker, true);
        await new Promise((r) => setTimeout(r, PAUSE_MS));
        pauseBroker(broker, false);
        return broker;
      },
    });
    assertEquals(figures.length, 2);
    // Exactly-once: after the resume the transaction coordinator may answer NOT_COORDINATOR or
    // CONCURRENT_TRANSACTIONS to a commit (kafkajs sends EndTxn once), or abort a transaction that stayed open
    // through the pause past transaction.timeout.ms (60 s); the task then fails with that one line and the daemon
    // restarts it. Nothing is lost or sent twice either way.
    for (const f of figures) assertFaultSurvived(f, { mayRestart: f.mode === "exactly-once" });
  },
});
