/**
 * A worker group moving a table to another member in the middle of a reconcile pass (two real daemon
 * processes, one group, the real broker, the simulator with a request latency so that a pass lasts seconds).
 * The source's two tables are on two tasks, one on each member. A first pass of `incident` (seeding its state)
 * repairs nothing. Then drift the cursor cannot see is made in its first range (a silent update, an insert dated
 * 2021) and in its last range (a silent update, a purge without audit, an insert dated 2021); a pass is started
 * over REST and, once its first range's repairs are in the topic and its last range is not begun, the member
 * running the table's task stops (SIGTERM, or kill -9), so the group gives the task to the other member. That
 * one shows the first pass as the table's last and starts the pass again by itself from the first range (the
 * table's pass record in the state topic says a pass was cut short: pass_record.ts), and the pass ends:
 * `tablesync verify` exits 0, and every drifted row was repaired once in the topic: the entries the leaving
 * member wrote for its repairs are read by the new one. After kill -9 a repair may come twice (its record
 * acknowledged, its entry not yet written: at-least-once), never three times, and never not at all.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { runVerify } from "../support/verify_command.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { groupWorker } from "../support/group_handover.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { type LastPass, repairCount } from "../support/reconcile_passes.ts";

const PASSWORD = "pw-Midpass-Avocet-8";
const FIELDS = "sys_id,sys_updated_on,sys_mod_count,short_description,state";
const HEADER_REPAIR = "tablesync.repair";
/** Rows of the table that moves: about 50 in each of the 16 ranges, one page each. */
const ROWS = 800;

interface TableView {
  alias: string;
  reconcile?: {
    last_pass: LastPass | null;
    running: { ranges_done: number; ranges: number; rows_compared: number } | null;
  };
}

/** The table `alias` as `member` shows it, or undefined while no task of that member runs it. */
async function tableOn(member: DaemonProcess, alias: string): Promise<TableView | undefined> {
  const { status, body } = await member.request("GET", "/connectors/src/tables");
  return status === 200 ? (body as TableView[]).find((t) => t.alias === alias) : undefined;
}

/** A sys id in the range of `digit` that no seeded row has (random). */
const sysIdIn = (digit: string) => digit + crypto.randomUUID().replaceAll("-", "").slice(1);

async function moveMidPass(stopSignal: "SIGTERM" | "SIGKILL") {
  const P = uniqueName("midpass");
  const sim = await startSimulator({
    port: 0,
    seed: { incident: ROWS, problem: 30 },
    users: [`admin:${PASSWORD}`],
    latencyMs: 250,
  });
  await using kafka = await startKafkaBroker();
  const topics = { incident: `${P}.incident`, problem: `${P}.problem` };
  for (const topic of Object.values(topics)) await kafka.createTopic(topic, 2);
  const source = sourceConnectorConfig(sim.url, PASSWORD, topics, {
    "svc.table.incident.fields": FIELDS,
    "svc.table.problem.fields": FIELDS,
    "svc.source.poll.interval.ms": 1000,
    "svc.source.safety.lag.seconds": 1,
    "svc.source.batch.size": 100,
    "svc.source.reconcile.interval.seconds": 3600,
    "svc.source.reconcile.state.topic": `${P}.state`,
    "tasks.max": 2,
  });
  const worker = groupWorker(kafka.bootstrapServers, P);
  const members: DaemonProcess[] = await Promise.all(
    [[{ name: "src", config: source }], []].map((connectors) =>
      startDaemonProcess({ worker, connectors }, { timeoutMs: 60_000 })
    ),
  );
  // The first member's file holds the connector: verify reads it, whichever member runs the tasks.
  const configPath = members[0].configPath;
  const verify = () => runVerify(configPath, "src");
  try {
    // The tables on two tasks, one on each member.
    const owner = await waitFor(
      async () => {
        const views = await Promise.all(members.map((m) => tableOn(m, "incident")));
        const problems = await Promise.all(members.map((m) => tableOn(m, "problem")));
        const at = views.findIndex((v) => v !== undefined);
        return at >= 0 && problems[at] === undefined && problems[1 - at] !== undefined ? members[at] : null;
      },
      90_000,
      "incident and problem running on different members",
    );
    const other = members.find((m) => m !== owner)!;
    await waitFor(async () => (await verify()).code === 0, 90_000, "the tables streamed");
    // A first pass on the owner (it seeds the state from the topic): nothing to repair.
    assertEquals((await owner.request("POST", "/connectors/src/tables/incident/reconcile")).status, 202);
    const first = await waitFor(
      async () => (await tableOn(owner, "incident"))?.reconcile?.last_pass,
      90_000,
      "a first pass",
    );
    assertEquals(repairCount(first), 0, JSON.stringify(first));

    const table = sim.table("incident");
    const ids = table.sysIds().sort();
    const early = ids.filter((id) => id < "1");
    const late = ids.filter((id) => id >= "f");
    assert(early.length >= 1 && late.length >= 2, "rows in the first and the last ranges");
    sim.drift.silentUpdate("incident", early[0], { short_description: "early fix script" });
    const earlyInsert = sysIdIn("0");
    sim.drift.insertDated(
      "incident",
      { sys_id: earlyInsert, short_description: "early XML" },
      "2021-01-01 00:00:00",
    );
    sim.drift.silentUpdate("incident", late.at(-1)!, { state: "7" });
    sim.drift.purge("incident", late[0]);
    const lateInsert = sysIdIn("f");
    sim.drift.insertDated(
      "incident",
      { sys_id: lateInsert, short_description: "late XML" },
      "2021-01-02 00:00:00",
    );
    const drifted = [early[0], earlyInsert, late.at(-1)!, late[0], lateInsert];
    assertEquals((await verify()).code, 1, "verify before the pass");

    assertEquals((await owner.request("POST", "/connectors/src/tables/incident/reconcile")).status, 202);
    const repairsInTopic = async () => {
      const count = new Map<string, number>();
      for (const r of await readTopicWithKcat(kafka.bootstrapServers, topics.incident)) {
        if (r.headers[HEADER_REPAIR] !== undefined) count.set(r.key!, (count.get(r.key!) ?? 0) + 1);
      }
      return count;
    };
    // The first range's repairs are in the topic; the last range (the later drift's) is not begun.
    await waitFor(
      async () => {
        const running = (await tableOn(owner, "incident"))?.reconcile?.running;
        if (!running || running.ranges_done < 1) return false;
        const sent = await repairsInTopic();
        return sent.has(early[0]) && sent.has(earlyInsert);
      },
      90_000,
      "the first range repaired",
    );
    const running = (await tableOn(owner, "incident"))?.reconcile?.running;
    assert(
      running && running.ranges_done < running.ranges - 1,
      `still running when it moves: ${JSON.stringify(running)}`,
    );
    console.log(`${stopSignal}: moving at ${running.ranges_done} of ${running.ranges} ranges`);
    const stopped = await owner.stop(stopSignal);
    if (stopSignal === "SIGTERM") assertEquals(stopped.code, 0);
    assert(
      !/reconcile pass of incident \(alias incident\): \d+ rows compared/.test(owner.output()),
      "the pass ended on the member that left",
    );
    members.splice(members.indexOf(owner), 1);

    // The task runs on the other member now, with what the first pass found; the pass cut short starts again
    // there from its first range, by itself (the next one by the interval would be an hour away), and ends.
    const shown = await waitFor(
      async () => (await tableOn(other, "incident"))?.reconcile?.last_pass,
      90_000,
      "incident running on the other member, showing a last pass",
    );
    assertEquals(shown, first, "the last pass as the new member shows it");
    const last = await waitFor(
      async () => {
        const pass = (await tableOn(other, "incident"))?.reconcile?.last_pass;
        return pass && pass.ended_at !== first.ended_at ? pass : null;
      },
      90_000,
      "the pass ended on the new member",
    );
    assert(
      !/requested over REST/.test(other.output()) &&
        /reconcile pass of incident \(alias incident\) starts/.test(other.output()),
      "the new member started the pass by itself",
    );
    const began = other.output().split("\n").find((l) =>
      l.includes("reconcile pass of incident (alias incident) starts")
    );
    const seconds = (Date.parse(last.ended_at) - Date.parse(JSON.parse(began!).time)) / 1000;
    console.log(`${stopSignal}: the pass on the new member: ${seconds} s, ${last.rows_compared} rows`);
    const after = await verify();
    assertEquals(after.code, 0, after.out + after.err);

    const sent = await repairsInTopic();
    assertEquals([...sent.keys()].sort(), [...drifted].sort(), "repaired rows");
    const twice = drifted.filter((id) => sent.get(id)! > 1);
    if (stopSignal === "SIGTERM") {
      assertEquals(twice, [], "repaired twice across a graceful move");
      assertEquals(
        { ...last.repairs },
        { "silent-update": 1, "rolled-back": 0, missing: 1, deleted: 1 },
        `the new member repairs only what the leaving one had not: ${JSON.stringify(last)}`,
      );
    } else {
      assert(drifted.every((id) => sent.get(id)! <= 2), `repairs: ${JSON.stringify([...sent])}`);
      assert(twice.every((id) => id === early[0] || id === earlyInsert), `sent twice: ${twice}`);
    }
    // One row purged, two inserted.
    assertEquals(last.rows_compared, ROWS + 1, JSON.stringify(last));
  } catch (error) {
    for (const m of members) {
      const lines = m.output().split("\n").filter((l) => /reconcile|state topic|WARN|ERROR|assign/i.test(l));
      console.log(`--- ${stopSignal} ${m.url}\n${lines.slice(-40).join("\n")}`);
    }
    throw error;
  } finally {
    await Promise.all(members.map((m) => m.stop("SIGTERM").catch(() => {})));
    await sim.stop();
  }
}

// The two stops run at once, each with its own group, simulator and topics: the test lasts as long as one.
Deno.test({
  name:
    "worker group: a table moved mid-pass ends equal; each drifted row repaired once after a graceful stop, at most twice after kill -9",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const stops = ["SIGTERM", "SIGKILL"] as const;
    const results = await Promise.allSettled(stops.map(moveMidPass));
    const failed = results.flatMap((r, i) =>
      r.status === "rejected" ? [`${stops[i]}: ${r.reason?.stack ?? r.reason}`] : []
    );
    if (failed.length > 0) throw new Error(failed.join("\n"));
  },
});
