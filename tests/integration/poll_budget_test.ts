/**
 * The poll scheduler under an instance rate-limit rule, through the real daemon: 30 tables at a 200 ms poll
 * interval would need 150 requests a second; the simulator's rule allows 80 per 10 s window. The scheduler
 * spreads what the rule allows over the tables (each table's expected staleness rises above its poll interval,
 * within `svc.source.poll.interval.max.ms`), no request is answered 429, and a row written later into a random
 * table still reaches its topic.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { filteredAliases } from "../support/source_connector.ts";

const PASSWORD = "pw-Poll-Budget-7";
const TABLES = 30;
const FLOOR_MS = 200;
const MAX_MS = 6000;
/** `svc.source.safety.lag.seconds`: part of every table's expected staleness. */
const SAFETY_LAG_S = 1;
/** A table's expected staleness at its poll interval, and at the ceiling. */
const AT_FLOOR_S = Math.ceil(FLOOR_MS / 1000) + SAFETY_LAG_S;
const AT_MAX_S = Math.ceil(MAX_MS / 1000) + SAFETY_LAG_S;

Deno.test("a rate-limit rule far below the poll interval's need: no 429, intervals within the ceiling, a change still arrives", async () => {
  const sim = await startSimulator({
    port: 0,
    users: [`admin:${PASSWORD}`],
    rateLimit: { requests: 80, windowSeconds: 10 },
  });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("budget.incident");
  await kafka.createTopic(topic, 1);
  const incidents = sim.table("incident");
  const aliases = Array.from({ length: TABLES }, (_, i) => `t${i}`);
  for (const alias of aliases) incidents.insert({ short_description: alias });
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "budget",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": PASSWORD,
        ...filteredAliases("incident", topic, aliases),
        "svc.source.poll.interval.ms": FLOOR_MS,
        "svc.source.poll.interval.max.ms": MAX_MS,
        "svc.source.safety.lag.seconds": SAFETY_LAG_S,
        "svc.retry.max.attempts": 20,
      },
    }],
  });
  try {
    await consumeAll(kafka.bootstrapServers, topic, { expected: TABLES, timeoutMs: 90_000 });
    // The scheduler has given the idle tables intervals above the floor, none above the ceiling.
    const tables = await waitFor(
      async () => {
        const tables = (await daemon.request("GET", "/connectors/budget/tables")).body as {
          phase: string;
          expected_staleness_seconds: number;
        }[];
        const scheduled = tables.length === TABLES && tables.every((t) => t.phase === "streaming") &&
          tables.filter((t) => t.expected_staleness_seconds > AT_FLOOR_S).length > TABLES / 2;
        return scheduled ? tables : null;
      },
      60_000,
      "idle tables scheduled above their poll interval",
    );
    assert(
      tables.every((t) => t.expected_staleness_seconds <= AT_MAX_S),
      JSON.stringify(tables),
    );

    const alias = aliases[Math.floor(Math.random() * TABLES)];
    const row = incidents.insert({ short_description: alias });
    const records = await consumeAll(kafka.bootstrapServers, topic, {
      expected: TABLES + 1,
      timeoutMs: 60_000,
    });
    assert(
      records.some((r) => JSON.stringify(r).includes(row.sys_id)),
      `the change in ${alias} did not arrive`,
    );
    const statuses = sim.counters.statuses();
    console.log(`statuses ${JSON.stringify(statuses)}`);
    assertEquals(statuses[429] ?? 0, 0, "requests answered 429");
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
