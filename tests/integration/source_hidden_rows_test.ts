/**
 * Rows hidden by access control through the real daemon: the simulator applies the limit before it drops hidden
 * rows, as the instance does. Four tables, each with hidden runs of 1, limit-1, limit or 3×limit rows at the
 * start, inside a same-second bucket and at the end, deliver every readable row exactly once in one
 * uninterrupted run; the requests of each table's sweeps are printed.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { HIDDEN_RUNS_CLOCK, type HiddenRunsTable, seedHiddenRuns } from "../source/hidden_runs_fixture.ts";

const PASSWORD = "pw-Hidden-Runs-42";
const LIMIT = 10;
const RUNS: Record<string, number> = { incident: 1, problem: LIMIT - 1, sys_user: LIMIT, cmdb_ci: 3 * LIMIT };

Deno.test("hidden runs of 1, limit-1, limit and 3×limit rows at the start, middle and end: every readable row exactly once", async () => {
  const sim = await startSimulator({
    port: 0,
    users: [`admin:${PASSWORD}`],
    clock: { mode: "frozen", at: HIDDEN_RUNS_CLOCK },
  });
  await using kafka = await startKafkaBroker();
  const seeded = new Map<string, HiddenRunsTable>();
  const config: Record<string, string | number> = {
    "connector.class": "TableSourceConnector",
    "svc.url": sim.url,
    "svc.auth.username": "admin",
    "svc.auth.password": PASSWORD,
    "svc.tables": Object.keys(RUNS).join(","),
    "svc.source.batch.size": LIMIT,
    "svc.source.poll.interval.ms": 200,
    "svc.source.safety.lag.seconds": 0,
  };
  for (const [table, length] of Object.entries(RUNS)) {
    seeded.set(table, seedHiddenRuns(sim, table, length));
    await kafka.createTopic(`hidden.${table}`, 1);
    config[`svc.table.${table}.name`] = table;
    config[`svc.table.${table}.topic`] = `hidden.${table}`;
    config[`svc.table.${table}.fields`] = "sys_id,sys_updated_on";
  }
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers, "log.level": "debug" },
    connectors: [{ name: "hidden", config }],
  });
  try {
    for (const [table, expected] of seeded) {
      const records = await consumeAll(kafka.bootstrapServers, `hidden.${table}`, {
        expected: expected.readable.length,
        timeoutMs: 60_000,
      });
      assertEquals(records.length, expected.readable.length, `${table}: ${daemon.output().slice(-2000)}`);
    }
    // A few more sweeps of every table, then nothing may have been delivered twice or skipped.
    const sweepsBefore = sweepLines(daemon.output()).length;
    await waitFor(
      () => Promise.resolve(sweepLines(daemon.output()).length >= sweepsBefore + 3 * seeded.size || null),
      30_000,
      "more sweeps",
    );
    for (const [table, expected] of seeded) {
      const records = await consumeAll(kafka.bootstrapServers, `hidden.${table}`, {
        expected: expected.readable.length,
        timeoutMs: 5_000,
      });
      // One partition: the topic holds the readable rows in cursor order, each once.
      assertEquals(records.map((r) => r.key), expected.readable, table);
      assert(
        records.every((r) => !expected.hidden.has(r.key as string)),
        `${table}: a hidden row was delivered`,
      );
      const sweeps = sweepLines(daemon.output()).filter((l) => l.table === table);
      console.log(
        `${table} (hidden runs of ${RUNS[table]}, limit ${LIMIT}): ${expected.readable.length} readable of ` +
          `${expected.ordered.length} rows; requests per sweep: first ${describe(sweeps[0])}, ` +
          `last ${describe(sweeps.at(-1)!)}`,
      );
    }
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});

interface SweepLine {
  table: string;
  pages: number;
  counted: number;
  splits: number;
}

function sweepLines(output: string): SweepLine[] {
  return output.split("\n").filter((l) => l.includes('"sweep done"')).map((l) =>
    JSON.parse(l.slice(l.indexOf("{")))
  );
}

function describe(s: SweepLine): string {
  return `${s.pages} (${s.counted} counted, ${s.splits} splits)`;
}
