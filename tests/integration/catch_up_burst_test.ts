/**
 * A catch-up spends the rate-limit window's spare budget, through the real daemon: 50 tables of 20 rows each
 * under a rule of 3,600 requests an hour, the daemon starting as the simulator's hour begins. Paced evenly at
 * 0.9 of the rule, the catch-up's requests would go about one a second; the burst allowance (rate_pacer.ts) lets
 * them go at once while the window keeps its reserve. Nothing may be answered 429, every row must arrive, and
 * most of the catch-up's requests must have gone without waiting for an even slot (the daemon's count of paced
 * requests); the catch-up time and the requests of the idle minute after it are printed (figures in
 * docs/performance.md), not asserted. It takes about a minute and a half: the idle minute is part of what it shows.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { filteredAliases, sourceConnectorConfig } from "../support/source_connector.ts";

const PASSWORD = "pw-Catch-Up-Burst-3";
const HOUR_MS = 3_600_000;
const TABLES = 50;
const ROWS = 20;
const IDLE_MS = 60_000;

Deno.test("a catch-up of 50 tables under an hourly rule: every row arrives, nothing answered 429", async () => {
  const now = Date.now();
  // The simulator's hour begins as it starts: the daemon's first window is (almost) a whole hour.
  const offsetMs = Math.ceil(now / HOUR_MS) * HOUR_MS - now;
  const sim = await startSimulator({
    port: 0,
    users: [`admin:${PASSWORD}`],
    rateLimit: { requests: 3600 },
    clock: { mode: "offset", offsetMs },
  });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("burst.incident");
  await kafka.createTopic(topic, 1);
  const incidents = sim.table("incident");
  const aliases = Array.from({ length: TABLES }, (_, i) => `b${i}`);
  for (const alias of aliases) {
    for (let i = 0; i < ROWS; i++) incidents.insert({ short_description: alias });
  }
  const startedAt = Date.now();
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "burst",
      config: sourceConnectorConfig(sim.url, PASSWORD, {}, {
        ...filteredAliases("incident", topic, aliases),
        "svc.retry.max.attempts": 20,
      }),
    }],
  });
  try {
    const firstRequestAt = () => sim.journal.entries()[0]?.startedAt ?? startedAt;
    const records = await consumeAll(kafka.bootstrapServers, topic, {
      expected: TABLES * ROWS,
      timeoutMs: 400_000,
    });
    const caughtUpAt = Date.now();
    const requestsAtCatchUp = sim.counters.requests;
    const metrics = String((await daemon.request("GET", "/metrics")).body);
    const paced = Number(
      /^tablesync_instance_rate_limit_paced_total\{[^}]*\} (\d+)$/m.exec(metrics)?.[1] ?? -1,
    );
    assertEquals(new Set(records.map((r) => r.key)).size, TABLES * ROWS, "distinct rows in the topic");
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle = sim.counters.requests - requestsAtCatchUp;
    const statuses = sim.counters.statuses();
    console.log(
      `catch-up of ${TABLES}x${ROWS} rows: ${
        ((caughtUpAt - firstRequestAt()) / 1000).toFixed(1)
      } s from the ` +
        `first request (${((caughtUpAt - startedAt) / 1000).toFixed(1)} s from the daemon's start), ` +
        `${requestsAtCatchUp} requests (${paced} paced); the idle minute after it: ${idle} requests; statuses ${
          JSON.stringify(statuses)
        }`,
    );
    assertEquals(statuses[429] ?? 0, 0, "requests answered 429");
    assert(paced >= 0, "no paced-requests metric");
    assert(
      paced < requestsAtCatchUp / 4,
      `${paced} of the catch-up's ${requestsAtCatchUp} requests waited for an even slot: the spare budget was not spent`,
    );
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
