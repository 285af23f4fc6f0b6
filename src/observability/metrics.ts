/**
 * A small metrics registry with Prometheus text exposition (`GET /metrics`).
 *
 * Counters and gauges are keyed by name and label set. Task threads keep their own registry and send
 * snapshots to the main thread, which merges them under the task's labels; the main thread's own
 * metrics (task states, offsets, REST) live in the process registry.
 */

export type Labels = Readonly<Record<string, string>>;

export interface MetricSample {
  name: string;
  labels: Labels;
  value: number;
}

/** A histogram's state: counts per bucket (not cumulative; the last is +Inf), their sum and count. */
export interface HistogramSample {
  name: string;
  labels: Labels;
  /** Upper bounds of the finite buckets, ascending. */
  bounds: readonly number[];
  /** `bounds.length + 1` counts: observations in (previous bound, bound], the last one above every bound. */
  counts: number[];
  sum: number;
}

export interface MetricsSnapshot {
  counters: MetricSample[];
  gauges: MetricSample[];
  histograms: HistogramSample[];
}

/** Bounds for request and round-trip durations in seconds (instance HTTP, Kafka produce and commit). */
export const DURATION_BUCKETS: readonly number[] = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
];

/** Help text for known metric names; unknown names are exposed without help. */
const METRIC_HELP: Record<string, string> = {
  tablesync_task_state: "1 for the task's current state (UNASSIGNED, RUNNING, PAUSED, FAILED, RESTARTING)",
  tablesync_connector_state: "1 for the connector's current state",
  tablesync_source_records_produced_total: "Source records acknowledged by Kafka",
  tablesync_source_rows_read_total: "Rows read from the instance",
  tablesync_source_records_total: "Records built from rows (before transforms and converters)",
  tablesync_source_duplicates_suppressed_total: "Re-read rows suppressed by the dedup cache",
  tablesync_source_rows_changed_during_read_total:
    "Rows of a page updated after the instance picked them (beyond the page's window)",
  tablesync_source_time_backwards_total:
    "Times a table found the instance gone back in time (cause: rollback of its rows, or the clock jumped back)",
  tablesync_source_rows_sent_ahead_total:
    "Rows changed during read sent at their new version ahead of the cursor (hot rows do not wait for a sweep)",
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
  tablesync_sink_records_failed_total: "Sink records that failed for good (record errors), by classification",
  tablesync_sink_records_retried_total: "Sink records whose write failed retriably and that were redelivered",
  tablesync_sink_fields_rewritten_total:
    "Fields in svc.sink.verify.rewritten.fields the instance stored with another value than sent, by table and field",
  tablesync_sink_writes_total:
    "Sink writes by how they ended: ok, a record error's classification, or rate_limited, server_error, not_api, quota_cancelled (retried)",
  tablesync_instance_in_flight: "Requests in flight to the instance",
  tablesync_instance_requests_total: "Requests to the instance by status",
  tablesync_instance_retries_total: "Retried requests to the instance",
  tablesync_instance_throttle_limit: "Current adaptive in-flight limit per instance",
  tablesync_instance_permits_waited_total: "Requests that had to wait for a concurrency permit",
  tablesync_instance_rate_limit_paced_total:
    "Requests delayed to stay within the instance's rate-limit rule (X-RateLimit-Limit/-Reset)",
  tablesync_instance_sessions_opened_total:
    "Instance sessions opened by the daemon's cookie jars (one per concurrent stream, plus any rotation)",
  tablesync_instance_session_waits_total:
    "Responses that waited behind their own session's previous request (Server-Timing sesh_wait; should stay 0)",
  tablesync_instance_not_done_total: "Responses HTTP 202 with an empty body (not done; retried)",
  tablesync_instance_request_duration_seconds:
    "Instance requests from sending to the response's headers (one attempt; by this thread's task)",
  tablesync_kafka_produce_duration_seconds: "Kafka produce round trips (send until acknowledged)",
  tablesync_kafka_offset_commit_duration_seconds: "Sink consumer offset commits",
  tablesync_sink_consumer_lag_records:
    "Records after the sink's position (log end offset at the last fetch minus the next offset to hand over)",
  tablesync_event_loop_delay_seconds:
    "How late the main thread's 100 ms sampling timer fired (event-loop delay)",
  tablesync_heap_used_bytes: "V8 heap used by the main thread",
  tablesync_heap_total_bytes: "V8 heap size of the main thread",
  process_resident_memory_bytes: "Resident memory of the process (every thread)",
  process_cpu_seconds_total: "User and system CPU time of the process",
  process_start_time_seconds: "Start time of the process since the Unix epoch",
  process_open_fds: "Open file descriptors (sockets, files, pipes)",
  process_max_fds: "Limit on open file descriptors",
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
  #histograms = new Map<string, HistogramSample>();
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

  /** Drops a gauge that no longer applies (e.g. the lag of a partition this task no longer owns). */
  unset(name: string, labels: Labels): void {
    this.#gauges.delete(keyOf(name, labels));
  }

  /** Counts one observation (e.g. a duration in seconds) in the histogram `name`. */
  observe(name: string, labels: Labels, value: number, bounds: readonly number[] = DURATION_BUCKETS): void {
    this.#increments++;
    const key = keyOf(name, labels);
    let sample = this.#histograms.get(key);
    if (!sample) {
      sample = { name, labels: { ...labels }, bounds, counts: new Array(bounds.length + 1).fill(0), sum: 0 };
      this.#histograms.set(key, sample);
    }
    const index = sample.bounds.findIndex((bound) => value <= bound);
    sample.counts[index === -1 ? sample.bounds.length : index]++;
    sample.sum += value;
  }

  snapshot(): MetricsSnapshot {
    return {
      counters: [...this.#counters.values()].map((s) => ({ ...s })),
      gauges: [...this.#gauges.values()].map((s) => ({ ...s })),
      histograms: [...this.#histograms.values()].map((s) => ({ ...s, counts: [...s.counts] })),
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

type MetricType = "counter" | "gauge" | "histogram";

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  return entries.length === 0 ? "" : `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

/** A histogram's lines: cumulative `_bucket{le}` counts ending with +Inf, then `_sum` and `_count`. */
function histogramLines(sample: HistogramSample, labels: Labels): string[] {
  const lines: string[] = [];
  let cumulative = 0;
  sample.counts.forEach((count, i) => {
    cumulative += count;
    const le = i < sample.bounds.length ? formatNumber(sample.bounds[i]) : "+Inf";
    lines.push(`${sample.name}_bucket${labelText({ ...labels, le })} ${cumulative}`);
  });
  lines.push(`${sample.name}_sum${labelText(labels)} ${formatNumber(sample.sum)}`);
  lines.push(`${sample.name}_count${labelText(labels)} ${cumulative}`);
  return lines;
}

/** An empty snapshot (a task that has not reported yet). */
export function emptySnapshot(): MetricsSnapshot {
  return { counters: [], gauges: [], histograms: [] };
}

/** Renders snapshots in the Prometheus text exposition format (version 0.0.4). */
export function renderPrometheus(snapshots: { snapshot: MetricsSnapshot; extraLabels?: Labels }[]): string {
  const families = new Map<string, { type: MetricType; lines: string[] }>();
  const familyOf = (type: MetricType, name: string) => {
    const family = families.get(name) ?? { type, lines: [] };
    families.set(name, family);
    return family;
  };
  const add = (type: MetricType, sample: MetricSample, extra: Labels = {}) => {
    const labels = { ...extra, ...sample.labels };
    familyOf(type, sample.name).lines.push(
      `${sample.name}${labelText(labels)} ${formatNumber(sample.value)}`,
    );
  };
  for (const { snapshot, extraLabels } of snapshots) {
    for (const s of snapshot.counters) add("counter", s, extraLabels);
    for (const s of snapshot.gauges) add("gauge", s, extraLabels);
    for (const s of snapshot.histograms) {
      familyOf("histogram", s.name).lines.push(...histogramLines(s, { ...extraLabels, ...s.labels }));
    }
  }
  const out: string[] = [];
  for (const [name, family] of [...families].sort(([a], [b]) => a.localeCompare(b))) {
    const help = METRIC_HELP[name];
    if (help) out.push(`# HELP ${name} ${help}`);
    out.push(`# TYPE ${name} ${family.type}`);
    out.push(...family.lines);
  }
  return out.join("\n") + "\n";
}

/** Sums the values of the samples named `name` whose labels include `match` (for the status page). */
export function sumOf(samples: readonly MetricSample[], name: string, match: Labels = {}): number {
  let total = 0;
  for (const s of samples) {
    if (s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)) total += s.value;
  }
  return total;
}
