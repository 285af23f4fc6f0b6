/**
 * Idle polls sharing Batch API requests, through the real daemon: two connectors of 20 caught-up tables each (one
 * task each), one with `svc.source.poll.batch` at its default (auto) and one with it off. Over a window of idle
 * polls the simulator's journal counts the HTTP requests of each (batch items are served inside their batch's
 * request) against the sweeps the daemon logs: about 1 request per table per poll without batching, at most 0.1
 * with it. A row changed in one table while batched still reaches the topic.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import type { JournalEntry } from "../../src/sim/journal.ts";

const PASSWORD = "pw-Batch-Polls-3";
const TABLES_PER_TASK = 20;
const ROWS_PER_TABLE = 2;
const POLL_MS = 1000;
/** Connector name → prefix of its aliases (each alias reads the incidents whose short_description is the alias). */
const CONNECTORS = { batched: "b", single: "s" } as const;

Deno.test("20 idle tables in one task: at most 0.1 requests per table per poll with batching, 1 without; a change still arrives", async () => {
  const sim = await startSimulator({ port: 0, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topics: Record<string, string> = {};
  const aliases: Record<string, string[]> = {};
  for (const [name, prefix] of Object.entries(CONNECTORS)) {
    aliases[name] = Array.from({ length: TABLES_PER_TASK }, (_, i) => `${prefix}${i}`);
    for (const alias of aliases[name]) {
      for (let r = 0; r < ROWS_PER_TABLE; r++) {
        sim.table("incident").insert({
          short_description: alias,
          sys_updated_on: `2025-03-0${1 + r} 10:00:00`,
        }, { suppressAutoSysFields: true });
      }
    }
    topics[name] = uniqueName(`batchpoll.${name}`);
    await kafka.createTopic(topics[name], 1);
  }
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers, "log.level": "debug" },
    connectors: Object.keys(CONNECTORS).map((name) => ({
      name,
      config: sourceConnectorConfig(sim.url, PASSWORD, {}, {
        "svc.tables": aliases[name].join(","),
        ...Object.fromEntries(aliases[name].flatMap((a) => [
          [`svc.table.${a}.name`, "incident"],
          [`svc.table.${a}.topic`, topics[name]],
          [`svc.table.${a}.query`, `short_description=${a}`],
        ])),
        "svc.source.poll.interval.ms": POLL_MS,
        ...(name === "single" ? { "svc.source.poll.batch": "false" } : {}),
      }),
    })),
  });
  try {
    for (const name of Object.keys(CONNECTORS)) {
      const expected = TABLES_PER_TASK * ROWS_PER_TABLE;
      const records = await consumeAll(kafka.bootstrapServers, topics[name], { expected });
      assertEquals(records.length, expected, name);
      await waitFor(
        async () => {
          const tables = (await daemon.request("GET", `/connectors/${name}/tables`)).body;
          return tables.length === TABLES_PER_TASK && tables.every((t: any) => t.phase === "streaming") ||
            null;
        },
        30_000,
        `${name}: every table streaming`,
      );
    }
    // Idle polls align to the interval's ticks after their first idle sweep: let that happen, then count.
    await new Promise((r) => setTimeout(r, 2 * POLL_MS));
    const since = Date.now();
    const outputBefore = daemon.output().length;
    await new Promise((r) => setTimeout(r, 6 * POLL_MS));
    const until = Date.now();
    const window = sim.journal.entries().filter((e) =>
      e.startedAt >= since && e.startedAt < until && !e.batchItem
    );
    const sweeps = daemon.output().slice(outputBefore).split("\n").filter((l) => l.includes('"sweep done"'))
      .map((l) => JSON.parse(l.slice(l.indexOf("{"))) as { alias: string; pages: number });
    const figures: Record<string, { requests: number; polls: number; perTablePerPoll: number }> = {};
    for (const [name, prefix] of Object.entries(CONNECTORS)) {
      const mine = (e: JournalEntry) =>
        name === "batched" && e.route === "POST /api/now/batch" ||
        e.table === "incident" &&
          new RegExp(`short_description=${prefix}\\d`).test(e.params.sysparm_query ?? "");
      const requests = window.filter(mine).length;
      const polls = sweeps.filter((s) => s.alias.startsWith(prefix)).length;
      assert(polls >= 4 * TABLES_PER_TASK, `${name}: only ${polls} polls in the window`);
      figures[name] = { requests, polls, perTablePerPoll: requests / polls };
    }
    console.log(`requests per idle table per poll: ${JSON.stringify(figures)}`);
    // Without batching every poll is its window query (a request started before the window may log after it).
    assert(
      Math.abs(figures.single.requests - figures.single.polls) <= TABLES_PER_TASK,
      JSON.stringify(figures.single),
    );
    assert(figures.batched.perTablePerPoll <= 0.1, JSON.stringify(figures.batched));
    // Every batched poll's query travelled as an item.
    const items = sim.journal.entries().filter((e) =>
      e.batchItem && e.startedAt >= since && e.startedAt < until
    );
    assert(items.length >= figures.batched.polls - TABLES_PER_TASK, `${items.length} items`);

    // A change in one table while batched reaches its topic.
    const changed = sim.table("incident").insert({ short_description: "b7" });
    const records = await consumeAll(kafka.bootstrapServers, topics.batched, {
      expected: TABLES_PER_TASK * ROWS_PER_TABLE + 1,
    });
    assert(
      records.some((r) => r.key?.includes(changed.sys_id)),
      `the change ${changed.sys_id} never arrived`,
    );
    const found = sim.journal.entries().find((e) =>
      e.batchItem && (e.params.sysparm_query ?? "").includes("short_description=b7") && e.rowsReturned > 0
    );
    assert(found, "the changed row was not read by a batched query");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
