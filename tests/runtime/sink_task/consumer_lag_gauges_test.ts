/** consumer_lag_gauges.ts: a gauge per partition, gone on revocation and all gone when the task fails. */
import { assertEquals } from "../../support/assert.ts";
import { MetricsRegistry } from "../../../src/observability/metrics.ts";
import { ConsumerLagGauges } from "../../../src/runtime/sink_task/consumer_lag_gauges.ts";

function lagOf(metrics: MetricsRegistry): Record<string, number> {
  const gauges = metrics.snapshot().gauges.filter((g) => g.name === "tablesync_sink_consumer_lag_records");
  return Object.fromEntries(gauges.map((g) => [`${g.labels.topic}/${g.labels.partition}`, g.value]));
}

Deno.test("consumer lag: high watermark minus position per partition, never negative; unset and clear remove", () => {
  const metrics = new MetricsRegistry();
  const lag = new ConsumerLagGauges(metrics);
  lag.set("a", 0, 100, 40);
  lag.set("a", 1, 10, 12);
  lag.set("b", 0, 5, 5);
  assertEquals(lagOf(metrics), { "a/0": 60, "a/1": 0, "b/0": 0 });
  lag.unset("a", 1);
  lag.unset("never", 3);
  assertEquals(lagOf(metrics), { "a/0": 60, "b/0": 0 });
  lag.clear();
  assertEquals(lagOf(metrics), {});
  lag.set("a", 0, 7, 2);
  assertEquals(lagOf(metrics), { "a/0": 5 });
});
