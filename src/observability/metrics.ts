/**
 * A small metrics registry with Prometheus text exposition (`GET /metrics`).
 *
 * Counters and gauges are keyed by name and label set. Task workers keep their own registry and send
 * snapshots to the main thread, which merges them under the task's labels; the main thread's own
 * metrics (task states, offsets, REST) live in the process registry.
 */

export type Labels = Readonly<Record<string, string>>;

export interface MetricSample {
  name: string;
  labels: Labels;
  value: number;
}

export interface MetricsSnapshot {
  counters: MetricSample[];
  gauges: MetricSample[];
}

/** Help text for known metric names; unknown names are exposed without help. */
const METRIC_HELP: Record<string, string> = {
  tablesync_task_state: "1 for the task's current state (UNASSIGNED, RUNNING, PAUSED, FAILED, RESTARTING)",
  tablesync_connector_state: "1 for the connector's current state",
  tablesync_source_records_produced_total: "Source records acknowledged by Kafka",
  tablesync_source_rows_read_total: "Rows read from the instance",
  tablesync_source_records_total: "Records built from rows (before transforms and converters)",
  tablesync_source_duplicates_suppressed_total: "Re-read rows suppressed by the dedup cache",
  tablesync_source_rows_changed_during_read_total:
    "Rows of a page updated after the instance picked them (beyond the page's window): read again by a later sweep",
  tablesync_source_bad_rows_total: "Rows skipped or failed as bad rows",
  tablesync_source_table_errors_total: "Failed reads of a table (access errors, retries exhausted)",
  tablesync_source_lag_seconds:
    "How stale the topic may be: streaming, seconds since the last sweep that proved the table caught up; backfill, instance clock minus the cursor",
  tablesync_source_deletes_total: "Tombstones of captured deletions (svc.table.<alias>.capture.deletes)",
  tablesync_source_backfill: "1 while the table is in its backfill phase, 0 once streaming",
  tablesync_source_rows_remaining:
    "Rows after the cursor still to read in backfill (Aggregate API count), 0 streaming",
  tablesync_source_eta_seconds:
    "Estimated seconds to the end of the backfill at the recent emit rate, 0 streaming",
  tablesync_sink_records_consumed_total: "Sink records consumed from Kafka",
  tablesync_sink_records_written_total: "Sink records written, by table and outcome",
  tablesync_sink_record_errors_total: "Sink record errors by classification",
  tablesync_sink_retriable_failures_total: "Sink writes that failed retriably and were redelivered",
  tablesync_instance_in_flight: "Requests in flight to the instance",
  tablesync_instance_requests_total: "Requests to the instance by status",
  tablesync_instance_retries_total: "Retried requests to the instance",
  tablesync_instance_throttle_limit: "Current adaptive in-flight limit per instance",
  tablesync_instance_permits_waited_total: "Requests that had to wait for a concurrency permit",
  tablesync_instance_rate_limit_paced_total:
    "Requests delayed to stay within the instance's rate-limit rule (X-RateLimit-Limit/-Reset)",
  tablesync_kafka_produce_latency_seconds_sum: "Sum of Kafka produce round-trip times",
  tablesync_kafka_produce_latency_seconds_count: "Number of Kafka produce requests",
  tablesync_offset_commit_latency_seconds_sum: "Sum of offset commit times",
  tablesync_offset_commit_latency_seconds_count: "Number of offset commits",
  tablesync_errors_total: "Record errors by stage and how they were handled",
  tablesync_dlq_records_total: "Records sent to the dead letter queue",
};

function keyOf(name: string, labels: Labels): string {
  const parts = Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`);
  return `${name}{${parts.join(",")}}`;
}

export class MetricsRegistry {
  #counters = new Map<string, MetricSample>();
  #gauges = new Map<string, MetricSample>();
  #increments = 0;

  /** How many times a counter was incremented: it grows while the thread does work (idle_collection.ts). */
  get increments(): number {
    return this.#increments;
  }

  increment(name: string, labels: Labels = {}, by = 1): void {
    this.#increments++;
    const key = keyOf(name, labels);
    const sample = this.#counters.get(key);
    if (sample) sample.value += by;
    else this.#counters.set(key, { name, labels: { ...labels }, value: by });
  }

  set(name: string, labels: Labels, value: number): void {
    this.#gauges.set(keyOf(name, labels), { name, labels: { ...labels }, value });
  }

  snapshot(): MetricsSnapshot {
    return {
      counters: [...this.#counters.values()].map((s) => ({ ...s })),
      gauges: [...this.#gauges.values()].map((s) => ({ ...s })),
    };
  }

  value(name: string, labels: Labels = {}): number | undefined {
    const key = keyOf(name, labels);
    return this.#counters.get(key)?.value ?? this.#gauges.get(key)?.value;
  }
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function formatNumber(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

/** Renders snapshots in the Prometheus text exposition format (version 0.0.4). */
export function renderPrometheus(snapshots: { snapshot: MetricsSnapshot; extraLabels?: Labels }[]): string {
  const families = new Map<string, { type: "counter" | "gauge"; lines: string[] }>();
  const add = (type: "counter" | "gauge", sample: MetricSample, extra: Labels = {}) => {
    const family = families.get(sample.name) ?? { type, lines: [] };
    families.set(sample.name, family);
    const labels = { ...extra, ...sample.labels };
    const rendered = Object.keys(labels).length === 0
      ? ""
      : `{${Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
    family.lines.push(`${sample.name}${rendered} ${formatNumber(sample.value)}`);
  };
  for (const { snapshot, extraLabels } of snapshots) {
    for (const s of snapshot.counters) add("counter", s, extraLabels);
    for (const s of snapshot.gauges) add("gauge", s, extraLabels);
  }
  const out: string[] = [];
  for (const [name, family] of [...families].sort(([a], [b]) => a.localeCompare(b))) {
    const help = METRIC_HELP[name];
    if (help) out.push(`# HELP ${name} ${help}`);
    // A _sum/_count pair is exposed as untyped counters, which every Prometheus client accepts.
    out.push(`# TYPE ${name} ${family.type}`);
    out.push(...family.lines);
  }
  return out.join("\n") + "\n";
}
