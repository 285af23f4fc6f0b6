/**
 * `GET /metrics` of the real daemon: a source reads instance A into a topic, a sink writes that topic into
 * instance B, and a second sink gets a record it cannot write (errors.tolerance=all with a dead letter queue).
 * Every line parses, histograms (instance requests, Kafka produce and commit, event-loop delay) have monotonic
 * cumulative buckets, the process metrics are there, and the sink counters and consumer lag move: instance B
 * answers two updates 503 (one attempt per request), so those records are retried and then written. Instance A
 * keeps sessions and answers two of the source's reads 202 (not done): the instance client's session counters
 * (sessions opened, session waits, not-done responses) appear per instance host and move.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { type Exposition, histograms, parseExposition, samplesOf, sumOf } from "../support/prometheus.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { sinkConnectorConfig } from "../support/sink_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Metrics-Heron-48";
const ROWS = 400;

Deno.test("metrics: histograms, process metrics, sink counters, consumer lag and session counters", async () => {
  const a = await startSimulator({ seed: { incident: ROWS }, users: [`admin:${PASSWORD}`], sessions: {} });
  const NOT_DONE = 2;
  a.faults.add({ method: "GET", table: "incident", fault: { kind: "accepted" }, times: NOT_DONE });
  const b = await startSimulator({ seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
  const UNAVAILABLE = 2;
  b.faults.add({
    method: "PATCH",
    table: "incident",
    fault: { kind: "status", status: 503 },
    times: UNAVAILABLE,
  });
  await using kafka = await startKafkaBroker();
  const [topic, textTopic, dlq] = [uniqueName("m.incident"), uniqueName("m.text"), uniqueName("m.dlq")];
  for (const t of [topic, textTopic, dlq]) await kafka.createTopic(t, 2);
  const sink = (url: string, topics: string, extra: Record<string, string | number> = {}) =>
    sinkConnectorConfig(url, PASSWORD, { topics, ...extra });
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers, "offset.flush.interval.ms": 500 },
    connectors: [
      { name: "from-a", config: sourceConnectorConfig(a.url, PASSWORD, { incident: topic }) },
      {
        name: "to-b",
        config: sink(b.url, topic, { "svc.sink.not.found.behavior": "create", "svc.retry.max.attempts": 1 }),
      },
      {
        name: "text",
        config: sink(b.url, textTopic, {
          "value.converter": "org.apache.kafka.connect.storage.StringConverter",
          "errors.tolerance": "all",
          "errors.deadletterqueue.topic.name": dlq,
        }),
      },
    ],
  });
  try {
    await produceRecords(kafka.bootstrapServers, textTopic, [{
      key: "k",
      value: "not a JSON object",
      partition: 1,
    }]);
    const read = async () => parseExposition(await (await fetch(`${daemon.url}/metrics`)).text());
    // Task metrics arrive every 2 s: wait until the sink wrote every row (no lag left on either partition)
    // and the text record failed, and the source's snapshot with its request timings arrived.
    const metrics: Exposition = await waitFor(
      async () => {
        const e = await read();
        const written = sumOf(e, "tablesync_sink_records_written_total", { connector: "to-b" });
        const failed = sumOf(e, "tablesync_sink_records_failed_total", { connector: "text" });
        const lag = samplesOf(e, "tablesync_sink_consumer_lag_records", { connector: "to-b" });
        // Each task posts its own snapshot: the source's may trail the sink's by up to one period.
        const sourceTimed = samplesOf(e, "tablesync_instance_request_duration_seconds_count", {
          connector: "from-a",
        }).some((s) => s.value > 0);
        return written >= ROWS && failed >= 1 && lag.length === 2 && lag.every((s) => s.value === 0) &&
            sourceTimed
          ? e
          : null;
      },
      60_000,
      `${ROWS} records written by to-b with no lag left, and one failed in text`,
    );

    const written = samplesOf(metrics, "tablesync_sink_records_written_total", { connector: "to-b" });
    assert(
      written.every((s) => s.labels.task === "0" && s.labels.table === "incident"),
      JSON.stringify(written),
    );
    assertEquals(sumOf(metrics, "tablesync_dlq_records_total", { connector: "text" }), 1);
    // Retried records: the 503s' batches were redelivered (to-b); a sink that never retried shows 0, not nothing.
    assert(
      sumOf(metrics, "tablesync_sink_records_retried_total", { connector: "to-b" }) >= 1,
      "no retry counted",
    );
    assertEquals(metrics.types.get("tablesync_sink_records_retried_total"), "counter");
    assertEquals(
      samplesOf(metrics, "tablesync_sink_records_retried_total", { connector: "text" }).map((s) => s.value),
      [0],
    );
    const lag = samplesOf(metrics, "tablesync_sink_consumer_lag_records", { connector: "to-b", topic });
    assertEquals(lag.map((s) => s.labels.partition).sort(), ["0", "1"]);

    const requests = histograms(metrics, "tablesync_instance_request_duration_seconds");
    const fromA = requests.filter((h) => h.labels.connector === "from-a");
    assert(fromA.length === 1 && fromA[0].count > 0, JSON.stringify(requests));
    assertEquals(fromA[0].labels.instance, new URL(a.url).host);
    assert(
      requests.some((h) => h.labels.connector === "to-b" && h.count >= 1),
      "the sink's requests are not timed",
    );
    const produce = histograms(metrics, "tablesync_kafka_produce_duration_seconds");
    assert(produce.some((h) => h.labels.connector === "from-a" && h.count > 0), "no produce timings");
    const commits = histograms(metrics, "tablesync_kafka_offset_commit_duration_seconds");
    assert(commits.some((h) => h.labels.connector === "to-b" && h.count > 0), "no commit timings");
    const loop = histograms(metrics, "tablesync_event_loop_delay_seconds");
    assert(loop.length === 1 && loop[0].count > 0, "no event-loop delay samples");

    const one = (name: string) => {
      const s = samplesOf(metrics, name);
      assertEquals(s.length, 1, name);
      return s[0].value;
    };
    assert(one("process_resident_memory_bytes") > 10_000_000, "resident memory");
    assert(
      one("tablesync_heap_used_bytes") > 0 &&
        one("tablesync_heap_total_bytes") >= one("tablesync_heap_used_bytes"),
    );
    assertEquals(metrics.types.get("process_cpu_seconds_total"), "counter");
    assert(one("process_cpu_seconds_total") > 0, "CPU time");
    const start = one("process_start_time_seconds");
    assert(start <= Date.now() / 1000 && start > Date.now() / 1000 - 3600, `start time ${start}`);
    assert(one("process_open_fds") > 0 && one("process_max_fds") >= one("process_open_fds"), "descriptors");

    // The instance client's session counters, per instance host: A opened sessions and answered 202 twice.
    const hostA = { instance: new URL(a.url).host };
    assert(sumOf(metrics, "tablesync_instance_sessions_opened_total", hostA) >= 1, "no session opened at A");
    assertEquals(sumOf(metrics, "tablesync_instance_not_done_total", hostA), NOT_DONE);
    assertEquals(metrics.types.get("tablesync_instance_not_done_total"), "counter");
    assertEquals(
      samplesOf(metrics, "tablesync_instance_session_waits_total", hostA).length,
      1,
      "session waits",
    );
    assertEquals(sumOf(metrics, "tablesync_instance_not_done_total", { instance: new URL(b.url).host }), 0);

    // Counters only grow: more rows in A, more written to B.
    a.table("incident").insert({ short_description: "one more" });
    await waitFor(
      async () => {
        const e = await read();
        return sumOf(e, "tablesync_sink_records_written_total", { connector: "to-b" }) > sumOf(
            metrics,
            "tablesync_sink_records_written_total",
            { connector: "to-b" },
          )
          ? e
          : null;
      },
      60_000,
      "the sink counter to move",
    );

    // A sink task that fails consumes nothing more: its lag is no longer reported, not frozen at its last value.
    await produceRecords(kafka.bootstrapServers, topic, [{ key: "k", value: "{not JSON", partition: 0 }]);
    await waitFor(
      async () => {
        const status = await daemon.request("GET", "/connectors/to-b/status");
        if (status.body?.tasks?.[0]?.state !== "FAILED") return false;
        return samplesOf(await read(), "tablesync_sink_consumer_lag_records", { connector: "to-b" })
          .length === 0;
      },
      60_000,
      "to-b FAILED with no consumer lag reported",
    );
    assert(
      sumOf(await read(), "tablesync_sink_records_written_total", { connector: "to-b" }) >= ROWS,
      "a failed task's counters stay",
    );
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await a.stop();
    await b.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
