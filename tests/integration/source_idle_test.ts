/**
 * Caught-up tables through the real daemon: a connector with one table and one with three, all of old rows
 * (months behind the instance clock), once streaming, cost one request per table per poll (the simulator's request counters and journal against the
 * sweeps the daemon logs: no clock probe, no second query), and their `lag_seconds` in
 * `GET /connectors/<name>/tables` stays between 0 and about one poll interval instead of the months since the
 * newest row, and does not grow while they are idle.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const PASSWORD = "pw-Idle-Tables-7";
const TABLES = ["incident", "problem", "sys_user", "cmdb_ci"];
const POLL_MS = 1000;

Deno.test("caught-up tables of old rows: one request per table per poll; lag 0..one poll interval, not growing", async () => {
  const sim = await startSimulator({ port: 0, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topics: Record<string, string> = {};
  const expected = new Map<string, number>();
  for (const table of TABLES) {
    for (let i = 0; i < 20; i++) {
      sim.table(table).insert({
        sys_updated_on: `2025-03-0${1 + (i % 9)} 10:00:${String(i).padStart(2, "0")}`,
      }, {
        suppressAutoSysFields: true,
      });
    }
    expected.set(table, sim.table(table).sysIds().length);
    topics[table] = uniqueName(`idle.${table}`);
    await kafka.createTopic(topics[table], 1);
  }
  // A task alone with its table sees no other table's responses: every poll must read the clock from its own.
  const connectors = { one: TABLES.slice(0, 1), many: TABLES.slice(1) };
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers, "log.level": "debug" },
    connectors: Object.entries(connectors).map(([name, tables]) => ({
      name,
      config: sourceConnectorConfig(
        sim.url,
        PASSWORD,
        Object.fromEntries(tables.map((t) => [t, topics[t]])),
        { "svc.source.poll.interval.ms": POLL_MS },
      ),
    })),
  });
  const allTables = async () =>
    (await Promise.all(
      Object.keys(connectors).map(async (name) =>
        (await daemon.request("GET", `/connectors/${name}/tables`)).body
      ),
    )).flat();
  try {
    for (const table of TABLES) {
      const records = await consumeAll(kafka.bootstrapServers, topics[table], {
        expected: expected.get(table)!,
      });
      assertEquals(records.length, expected.get(table), table);
    }
    await waitFor(
      async () => {
        const tables = await allTables();
        return tables.length === TABLES.length && tables.every((t: any) => t.phase === "streaming") || null;
      },
      30_000,
      "every table streaming",
    );

    // A window of idle polls: requests counted by the simulator, sweeps as the daemon logs them.
    sim.counters.reset();
    const since = Date.now();
    const outputBefore = daemon.output().length;
    const lags: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      for (const t of await allTables()) lags.push(t.lag_seconds);
    }
    const window = sim.journal.entries().filter((e) => e.startedAt >= since);
    // HTTP requests: the items of a Batch API request (idle polls of a task's tables, svc.source.poll.batch) are
    // served inside it. The per-table counts below include items: each poll is still one query.
    const requests = window.filter((e) => !e.batchItem).length;
    const sweeps = daemon.output().slice(outputBefore).split("\n").filter((l) => l.includes('"sweep done"'))
      .map((l) => JSON.parse(l.slice(l.indexOf("{"))) as { table: string; pages: number });
    let perPoll = "";
    for (const table of TABLES) {
      const pages = window.filter((e) => e.table === table).length;
      const polls = sweeps.filter((s) => s.table === table).length;
      perPoll += ` ${table} ${pages}/${polls}`;
      assert(polls >= 2, `${table}: ${polls} sweeps in the window`);
      // A request that started before the window's end may log its sweep after it, or the other way round.
      assert(Math.abs(pages - polls) <= 1, `${table}: ${pages} requests for ${polls} polls`);
    }
    assert(sweeps.every((s) => s.pages === 1), JSON.stringify(sweeps));
    assertEquals(window.filter((e) => e.params.sysparm_limit === "1").length, 0, "no clock probe");
    assert(requests <= sweeps.length + TABLES.length, `${requests} requests for ${sweeps.length} polls`);
    console.log(
      `idle window: ${requests} requests for ${sweeps.length} polls (requests/polls:${perPoll}); ` +
        `lag_seconds ${Math.min(...lags)}..${Math.max(...lags)}`,
    );

    // Rows of March 2025: the cursor is months behind the clock, the topic is not.
    const bound = Math.ceil(POLL_MS / 1000) + 1;
    assert(lags.every((lag) => lag >= 0 && lag <= bound), `lags ${lags} beyond 0..${bound}`);
    const tables = await allTables();
    assert(tables.every((t: any) => t.expected_staleness_seconds === 2), JSON.stringify(tables));
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
