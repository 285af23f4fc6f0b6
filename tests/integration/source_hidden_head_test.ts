/**
 * A table whose first 30 % is hidden by access control, through the real daemon: every readable row reaches the
 * topic once, the backfill's requests (counted by the simulator) stay within 1.5 times the raw page floor (rows
 * before access control ÷ page size), and the first readable row comes after about as many requests as the
 * hidden head has raw pages: the search starts where the rows begin (the Aggregate API's MIN), not at 1970.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { seedHiddenHead } from "../source/hidden_head_fixture.ts";

const PASSWORD = "pw-Hidden-Head-9";
const ROWS = 4000;
const HEAD = 1200;
const LIMIT = 100;

Deno.test("a table with its first 30 % hidden: backfill within 1.5 × the raw page floor, first row after the head's pages", async () => {
  const sim = await startSimulator({ port: 0, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const table = seedHiddenHead(sim, "incident", { rows: ROWS, head: HEAD, every: 10 });
  const topic = uniqueName("hidden-head.incident");
  await kafka.createTopic(topic, 1);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "hidden-head",
      // One sweep: the poll interval outlasts the test.
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
        "svc.source.batch.size": LIMIT,
        "svc.source.poll.interval.ms": 600_000,
      }),
    }],
  });
  try {
    const records = await consumeAll(kafka.bootstrapServers, topic, { expected: table.readable.length });
    assertEquals(records.map((r) => r.key), table.readable);
    const sweep = sim.journal.find((e) =>
      (e.route === "GET /api/now/table/incident" && e.params.sysparm_limit === String(LIMIT)) ||
      (e.route === "GET /api/now/stats/incident" && e.params.sysparm_min_fields !== undefined)
    );
    const floor = ROWS / LIMIT;
    const beforeFirst = sweep.findIndex((e) => e.rowsReturned > 0);
    console.log(
      `hidden head of ${HEAD} of ${ROWS} rows (+10 % scattered), limit ${LIMIT}: ${sweep.length} requests ` +
        `(floor ${floor}), ${beforeFirst} before the first readable row; all requests ${sim.counters.requests}`,
    );
    assert(sweep.length <= 1.5 * floor, `${sweep.length} requests, more than 1.5 × ${floor}`);
    assert(beforeFirst <= 1.5 * (HEAD / LIMIT) + 2, `${beforeFirst} requests before the first row`);
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
