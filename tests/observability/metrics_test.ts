/** The metrics registry's Prometheus text: counters, gauges and histograms (cumulative buckets, +Inf, _sum, _count). */
import { assert, assertEquals } from "../support/assert.ts";
import { MetricsRegistry, renderPrometheus } from "../../src/observability/metrics.ts";
import { histograms, parseExposition, samplesOf } from "../support/prometheus.ts";

Deno.test("a histogram renders cumulative buckets ending with +Inf, its sum and count", () => {
  const registry = new MetricsRegistry();
  for (const v of [0.0004, 0.003, 0.003, 0.2, 7, 45]) {
    registry.observe("tablesync_kafka_produce_duration_seconds", { topic: "a" }, v);
  }
  registry.observe("tablesync_kafka_produce_duration_seconds", { topic: "b" }, 0.5, [0.1, 1]);
  const text = renderPrometheus([{
    snapshot: registry.snapshot(),
    extraLabels: { connector: "c", task: "0" },
  }]);
  const exposition = parseExposition(text);
  const [a, b] = histograms(exposition, "tablesync_kafka_produce_duration_seconds")
    .sort((x, y) => x.labels.topic.localeCompare(y.labels.topic));
  assertEquals(a.labels, { connector: "c", task: "0", topic: "a" });
  assertEquals(a.count, 6);
  assert(Math.abs(a.sum - 52.2064) < 1e-9, `sum ${a.sum}`);
  const le = (h: typeof a, bound: number) => h.buckets.find((x) => x.le === bound)!.count;
  assertEquals([le(a, 0.001), le(a, 0.005), le(a, 0.25), le(a, 10), le(a, 30), le(a, Infinity)], [
    1,
    3,
    4,
    5,
    5,
    6,
  ]);
  assertEquals(b.buckets, [{ le: 0.1, count: 0 }, { le: 1, count: 1 }, { le: Infinity, count: 1 }]);
  assertEquals(text.match(/# TYPE tablesync_kafka_produce_duration_seconds histogram/g)?.length, 1);
});

Deno.test("counters, gauges and removed gauges", () => {
  const registry = new MetricsRegistry();
  registry.increment("tablesync_sink_records_written_total", { table: "incident", outcome: "updated" }, 3);
  registry.set("tablesync_sink_consumer_lag_records", { topic: "t", partition: "0" }, 12);
  registry.set("tablesync_sink_consumer_lag_records", { topic: "t", partition: "1" }, 4);
  registry.unset("tablesync_sink_consumer_lag_records", { topic: "t", partition: "1" });
  const exposition = parseExposition(renderPrometheus([{ snapshot: registry.snapshot() }]));
  assertEquals(exposition.types.get("tablesync_sink_records_written_total"), "counter");
  assertEquals(exposition.types.get("tablesync_sink_consumer_lag_records"), "gauge");
  assertEquals(samplesOf(exposition, "tablesync_sink_consumer_lag_records").map((s) => s.labels.partition), [
    "0",
  ]);
  assertEquals(samplesOf(exposition, "tablesync_sink_records_written_total")[0].value, 3);
});
