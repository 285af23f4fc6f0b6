/**
 * Per-table progress through the real daemon: `GET /connectors/<name>/tables` during a backfill (phase backfill,
 * rows_remaining from the simulator's Aggregate API, an ETA estimate once the rate was measured for 10 s) and after
 * it (streaming, lag within the poll interval, still so after seconds without a new row), the same in the metrics,
 * and 404 for an unknown connector.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const ROWS = 4000;

Deno.test("GET /connectors/<name>/tables shows backfill with rows remaining and an ETA, then streaming", async () => {
  // Latency makes the backfill last long enough to be watched (about 20 s: an ETA needs 10 s of progress).
  const sim = await startSimulator({
    seed: { incident: ROWS },
    users: ["admin:pw-Progress-3"],
    latencyMs: 200,
  });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("progress.incident");
  await kafka.createTopic(topic, 2);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "incidents",
      config: sourceConnectorConfig(sim.url, "pw-Progress-3", { incident: topic }, {
        "svc.source.batch.size": 40,
        "svc.source.poll.interval.ms": 500,
      }),
    }],
  });
  try {
    const during = await waitFor(
      async () => {
        const res = await daemon.request("GET", "/connectors/incidents/tables");
        const t = res.body?.[0];
        return t && t.phase === "backfill" && t.rows_remaining !== null && t.eta_seconds_estimate !== null &&
            t.rows_emitted > 0
          ? res.body
          : null;
      },
      60_000,
      "a backfill report with a count and an ETA",
    );
    assertEquals(during.length, 1);
    const t = during[0];
    assertEquals([t.alias, t.table, t.task], ["incident", "incident", 0]);
    assert(t.rows_emitted + t.rows_remaining <= ROWS, JSON.stringify(t));
    assert(t.eta_seconds_estimate >= 0 && t.cursor.sys_id.length === 32, JSON.stringify(t));
    assertEquals(t.last_error, null);
    // Metrics travel in their own snapshots (every 2 s), so they may trail the first report.
    await waitFor(
      async () => {
        const metrics = String((await daemon.request("GET", "/metrics")).body);
        return /^tablesync_source_rows_remaining\{[^}]*alias="incident"[^}]*\} \d+/m.test(metrics) &&
          /^tablesync_source_backfill\{[^}]*alias="incident"[^}]*\} 1$/m.test(metrics);
      },
      20_000,
      "rows_remaining and backfill=1 in the metrics",
    );

    const after = await waitFor(
      async () => {
        const res = await daemon.request("GET", "/connectors/incidents/tables");
        return res.body?.[0]?.phase === "streaming" ? res.body[0] : null;
      },
      90_000,
      "the streaming phase",
    );
    assertEquals(after.rows_emitted, ROWS);
    assertEquals(after.rows_remaining, null);
    // The sweep that ended the backfill proves the table caught up as of its start; the next sweep, one poll
    // interval later, brings the lag within the interval.
    const lagWithinInterval = (what: string) =>
      waitFor(
        async () => {
          const row = (await daemon.request("GET", "/connectors/incidents/tables")).body?.[0];
          return row && row.lag_seconds !== null && row.lag_seconds <= 2 ? row : null;
        },
        10_000,
        what,
      );
    const settled = await lagWithinInterval("a lag within the poll interval once streaming");
    assertEquals(settled.phase, "streaming");
    // Idle, it stays there: the table gets no new row, yet every poll proves it caught up again, so after 6 s
    // (twelve poll intervals) the lag is back within the interval rather than 6 s and growing.
    await new Promise((r) => setTimeout(r, 6000));
    const idle = await lagWithinInterval("a lag within the poll interval on the idle table");
    assertEquals(idle.rows_emitted, ROWS);

    const missing = await daemon.request("GET", "/connectors/nope/tables");
    assertEquals(missing.status, 404);
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
