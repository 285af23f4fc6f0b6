/**
 * Pacing before 429 through the real daemon: the simulator applies a rate-limit rule with a short window. With
 * pacing (the default) a backfill that needs several windows' worth of requests gets no 429 at all; the same run
 * with pacing off does run into the rule, which shows the run is one that would otherwise hit it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const ROWS = 5000;

async function backfillUnderRule(
  pacing: boolean,
): Promise<{ throttled: number; requests: number; pacedMetric: number }> {
  // 8 requests per 2 s: a 5000-row backfill in pages of 100 needs over 50 requests, so 6+ windows; a daemon
  // unpaced exceeds 4 requests per second even on a heavily loaded machine.
  const sim = await startSimulator({
    seed: { incident: ROWS },
    users: ["admin:pw-Pacing-7"],
    rateLimit: { requests: 8, windowSeconds: 2 },
  });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("pacing.incident");
  await kafka.createTopic(topic, 2);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "incidents",
      config: sourceConnectorConfig(sim.url, "pw-Pacing-7", { incident: topic }, {
        "svc.source.batch.size": 100,
        "svc.source.poll.interval.ms": 200,
        "svc.http.rate.limit.pacing": pacing,
        "svc.retry.max.attempts": 20,
      }),
    }],
  });
  try {
    const records = await consumeAll(kafka.bootstrapServers, topic, {
      expected: ROWS,
      timeoutMs: 90_000,
    });
    assertEquals(new Set(records.map((r) => r.key)).size, ROWS, daemon.output().slice(-3000));
    const statuses = sim.counters.statuses();
    const metrics = await daemon.request("GET", "/metrics");
    const paced = /^tablesync_instance_rate_limit_paced_total\{[^}]*\} (\d+)$/m.exec(String(metrics.body));
    return {
      throttled: statuses[429] ?? 0,
      requests: Object.values(statuses).reduce((a, b) => a + b, 0),
      pacedMetric: Number(paced?.[1] ?? -1),
    };
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
}

Deno.test("with pacing the daemon stays within the instance's rate-limit rule: no 429 over a multi-window backfill", async () => {
  const paced = await backfillUnderRule(true);
  console.log(`paced: ${paced.requests} requests, ${paced.throttled} answered 429`);
  assert(paced.requests > 40, `only ${paced.requests} requests: the run did not span several windows`);
  assertEquals(paced.throttled, 0);
  assert(paced.pacedMetric > 0, `the metrics show ${paced.pacedMetric} paced requests`);
});

Deno.test("without pacing the same backfill runs into the rule (the control for the test above)", async () => {
  const unpaced = await backfillUnderRule(false);
  console.log(`unpaced: ${unpaced.requests} requests, ${unpaced.throttled} answered 429`);
  assert(unpaced.throttled > 0, "no 429 without pacing: the scenario does not exercise the rule");
});
