/**
 * Group mode through three real daemon processes (same group.id) against the instance simulator and a Kafka
 * broker: one 4-table source (one table on each of its 4 tasks, src/source/assignment.ts) and one sink.
 *  - the members, starting at once, create the missing offsets, config and status topics;
 *  - the tasks spread over all three members (loads within one), and status agrees on every member;
 *  - no table is polled by two members in steady state (simulator request counts per table);
 *  - the sink's tasks write on every group size (three, two, one member);
 *  - kill -9 of a member: its tasks move to the others, every row version still reaches the topics, and what is
 *    sent again lies at or after the cursors the killed member had committed (no overlap is configured);
 *  - both survivors list the same source offsets (the shared offsets topic);
 *  - pause, resume and a config change over REST on one member are applied by all;
 *  - a graceful stop moves the stopped member's tasks with no row version sent twice (the final offsets carry
 *    the versions already sent in the re-read window).
 * The broker is the run's real Kafka broker (tests/support/kafka_broker.ts), shared with other tests: topics and
 * groups carry this run's unique prefix.
 */
import { SCHEMALESS_JSON, sinkConnectorConfig } from "../support/sink_connector.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { connectorStatus, type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { currentVersions } from "../support/topic_versions.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Group-Heron-23";
const TABLES = ["incident", "problem", "sys_user", "cmdb_ci"];
const POLL_MS = 300;
const SESSION_TIMEOUT_MS = 6000;
const startBroker = () => startKafkaBroker();
/** Prefix of this run's topics and group on the shared broker. */
const P = uniqueName("group");

function sourceConfig(sim: Simulator) {
  const config = sourceConnectorConfig(
    sim.url,
    PASSWORD,
    Object.fromEntries(TABLES.map((t) => [t, `${P}.${t}`])),
    {
      "svc.source.poll.interval.ms": POLL_MS,
      "svc.source.startup.probe": false,
      // No re-read window: a task that moves after a graceful stop resumes exactly at its committed cursor.
      "svc.source.overlap.seconds": 0,
      "tasks.max": 4,
    },
  );
  for (const t of TABLES) config[`svc.table.${t}.fields`] = "sys_id,sys_updated_on,sys_mod_count,number";
  return config;
}

function sinkConfig(sim: Simulator) {
  return sinkConnectorConfig(sim.url, PASSWORD, {
    "topics": `${P}.sink`,
    "tasks.max": 2,
    ...SCHEMALESS_JSON,
    // The sink's own consumer group notices a dead member within this timeout (the mock wants > 3 s).
    "consumer.override.session.timeout.ms": SESSION_TIMEOUT_MS,
    "consumer.override.heartbeat.interval.ms": 1000,
  });
}

function worker(bootstrap: string) {
  return {
    "bootstrap.servers": bootstrap,
    "group.id": `${P}-workers`,
    "offset.storage.topic": `${P}.offsets`,
    "config.storage.topic": `${P}.configs`,
    "status.storage.topic": `${P}.status`,
    "session.timeout.ms": SESSION_TIMEOUT_MS,
    "heartbeat.interval.ms": 1000,
    "offset.flush.interval.ms": 200,
    // One broker: the offsets topic's default replication factor (3, as Connect's) cannot be met.
    "offset.storage.replication.factor": 1,
  };
}

/** worker_id → task ids it runs, as `member` reports; null unless every task is RUNNING. */
async function placement(
  member: DaemonProcess,
  name: string,
  tasks: number,
): Promise<Map<string, number[]> | null> {
  const s = await connectorStatus(member, name);
  if (!s || s.tasks.length !== tasks || s.tasks.some((t) => t.state !== "RUNNING")) return null;
  const out = new Map<string, number[]>();
  for (const t of s.tasks) out.set(t.worker_id, [...(out.get(t.worker_id) ?? []), t.id]);
  return out;
}

const host = (m: DaemonProcess) => new URL(m.url).host;

interface Delivery {
  table: string;
  updatedOn: string;
  count: number;
}

/** How often each version (`table/sys_id|sys_updated_on|sys_mod_count`) of each table's rows is on its topic. */
async function deliveries(bootstrap: string): Promise<Map<string, Delivery>> {
  const counts = new Map<string, Delivery>();
  for (const table of TABLES) {
    for (const r of await readTopicWithKcat(bootstrap, `${P}.${table}`)) {
      const value = JSON.parse(r.value!);
      const version = `${table}/${r.key}|${value.sys_updated_on}|${value.sys_mod_count}`;
      const seen = counts.get(version);
      if (seen) seen.count++;
      else counts.set(version, { table, updatedOn: value.sys_updated_on, count: 1 });
    }
  }
  return counts;
}

/** Each table's committed cursor timestamp, from the latest record of its key in the shared offsets topic. */
async function committedCursors(bootstrap: string): Promise<Map<string, string>> {
  const cursors = new Map<string, string>();
  for (const r of await readTopicWithKcat(bootstrap, `${P}.offsets`)) {
    const [, partition] = JSON.parse(r.key!);
    if (r.value !== null) cursors.set(partition.table, JSON.parse(r.value).timestamp);
  }
  return cursors;
}

/** The current version of every row of every table, as `deliveries` names them. */
function tablesVersions(sim: Simulator): string[] {
  return TABLES.flatMap((t) => currentVersions(sim, t).map((v) => `${t}/${v}`));
}

/** Waits until every row's current version is on the topics; returns the delivery counts. */
function allDelivered(bootstrap: string, sim: Simulator): Promise<Map<string, Delivery>> {
  return waitFor(
    async () => {
      const counts = await deliveries(bootstrap);
      return tablesVersions(sim).every((v) => counts.has(v)) ? counts : null;
    },
    60_000,
    "every row version on the topics",
  );
}

/**
 * Every row version delivered and nothing more arriving: the same counts in two reads 3 s apart (re-reads after
 * earlier restarts, e.g. of a config change, have landed).
 */
async function settledDeliveries(bootstrap: string, sim: Simulator): Promise<Map<string, Delivery>> {
  let previous = JSON.stringify([...await allDelivered(bootstrap, sim)]);
  return await waitFor(
    async () => {
      await new Promise((r) => setTimeout(r, 3000));
      const now = await allDelivered(bootstrap, sim);
      const text = JSON.stringify([...now]);
      const settled = text === previous;
      previous = text;
      return settled ? now : null;
    },
    60_000,
    "deliveries to settle",
  );
}

/** Produces sink updates (key = sys_id) with kcat and waits until the incident table shows them. */
async function sinkUpdates(bootstrap: string, sim: Simulator, label: string): Promise<void> {
  const ids = sim.table("incident").sysIds().slice(0, 8);
  const lines = ids.map((id) => `${id}\t${JSON.stringify({ short_description: `${label} ${id}` })}`);
  const child = new Deno.Command("kcat", {
    args: ["-P", "-b", bootstrap, "-t", `${P}.sink`, "-K", "\t"],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.join("\n") + "\n"));
  await writer.close();
  assertEquals((await child.output()).code, 0);
  await waitFor(
    () => ids.every((id) => sim.table("incident").get(id)!.short_description === `${label} ${id}`),
    60_000,
    `sink updates "${label}" in the incident table`,
  );
}

Deno.test({
  name:
    "three members share one 4-table source and one sink; kill -9 and graceful stop move tasks; REST changes reach all",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({
      port: 0,
      seed: Object.fromEntries(TABLES.map((t) => [t, 200])),
      users: [`admin:${PASSWORD}`],
      journalLimit: 200_000,
    });
    await using kafka = await startBroker();
    // The offsets, config and status topics are not created here: the members create them at start.
    await kafka.createTopic(`${P}.sink`, 4);
    for (const t of TABLES) await kafka.createTopic(`${P}.${t}`, 2);
    const bootstrap = kafka.bootstrapServers;
    const members: DaemonProcess[] = [];
    try {
      // The first member's file seeds the config topic; the others start with no connectors of their own.
      const connectors = [
        { name: "src", config: sourceConfig(sim) },
        { name: "snk", config: sinkConfig(sim) },
      ];
      members.push(
        ...await Promise.all(
          [connectors, [], []].map((c) =>
            startDaemonProcess({ worker: worker(bootstrap), connectors: c }, { timeoutMs: 60_000 })
          ),
        ),
      );
      // Started members hold an assignment: ready, with the group check.
      for (const m of members) {
        const ready = await m.request("GET", "/ready");
        assertEquals(
          [ready.status, ready.body.checks.group],
          [200, { ready: true }],
          JSON.stringify(ready.body),
        );
      }

      // Spread: every task on one member, loads within one, every member busy; every member's status agrees.
      const sourceTasks = await waitFor(
        async () => (await members[1].request("GET", "/connectors/src/tasks")).body?.length,
        60_000,
        "the source's tasks on the third member",
      );
      const spread = await waitFor(
        async () => {
          const views = await Promise.all(members.map(async (m) => {
            const src = await placement(m, "src", sourceTasks);
            const snk = await placement(m, "snk", 2);
            return src && snk ? JSON.stringify([[...src].sort(), [...snk].sort()]) : null;
          }));
          if (views.some((v) => v === null) || new Set(views).size !== 1) return null;
          const [src, snk] = JSON.parse(views[0]!) as [string, number[]][][];
          const load = new Map<string, number>();
          for (const [w, ids] of [...src, ...snk]) load.set(w, (load.get(w) ?? 0) + ids.length);
          const loads = [...load.values()];
          return load.size === 3 && Math.max(...loads) - Math.min(...loads) <= 1 ? new Map(src) : null;
        },
        90_000,
        "tasks spread over all three members, loads within one, the same status on every member",
      );
      assert([...spread.keys()].every((w) => members.some((m) => host(m) === w)));
      assertEquals(
        await Promise.all(["configs", "status"].map((t) => kafka.partitionCount(`${P}.${t}`))),
        [1, 5],
        "the config topic with 1 partition, the status topic with status.storage.partitions (default 5)",
      );
      for (const t of ["offsets", "configs", "status"]) {
        assertEquals((await kafka.topicConfig(`${P}.${t}`))["cleanup.policy"], "compact", `${t} compacted`);
      }
      await allDelivered(bootstrap, sim);
      await sinkUpdates(bootstrap, sim, "three members");

      // Steady state: in a 6 s window each table is polled about once per poll interval, so by one member.
      const from = sim.journal.entries().length;
      await new Promise((r) => setTimeout(r, 6000));
      const window = sim.journal.entries().slice(from);
      for (const t of TABLES) {
        const polls = window.filter((e) => e.method === "GET" && e.table === t).length;
        console.log(`steady state: ${t} polled ${polls} times in 6 s (poll interval ${POLL_MS} ms)`);
        assert(polls > 0, `${t} was not polled`);
        assert(polls <= (6000 / POLL_MS) * 1.5 + 2, `${t} polled ${polls} times: by more than one member`);
      }

      // kill -9 of a member running source tasks while rows change: its tasks move, no row version is lost,
      // and what is sent again lies at or after the cursors it had committed (no overlap is configured).
      const beforeKill = await settledDeliveries(bootstrap, sim);
      sim.writer.start({ rowsPerSecond: 40, table: "incident", insertRatio: 0.3 });
      await new Promise((r) => setTimeout(r, 2000));
      const victim = members.find((m) => spread.get(host(m))?.length)!;
      const survivors = members.filter((m) => m !== victim);
      const killedAt = performance.now();
      await victim.stop("SIGKILL");
      members.splice(members.indexOf(victim), 1);
      const cursorsAtKill = await committedCursors(bootstrap);
      await waitFor(
        async () => {
          const src = await placement(survivors[0], "src", sourceTasks);
          const snk = await placement(survivors[0], "snk", 2);
          return src && snk && !src.has(host(victim)) && !snk.has(host(victim));
        },
        90_000,
        "the killed member's tasks running elsewhere",
      );
      console.log(`failover after kill -9: ${Math.round(performance.now() - killedAt)} ms`);
      await new Promise((r) => setTimeout(r, 2000));
      sim.writer.stop();
      const afterKill = await settledDeliveries(bootstrap, sim);
      const resent = [...afterKill].filter(([v, d]) => d.count > (beforeKill.get(v)?.count ?? 1));
      console.log(`kill -9: ${resent.length} row versions delivered again`);
      const beforeCursor = resent.filter(([, d]) => d.updatedOn < (cursorsAtKill.get(d.table) ?? ""));
      assertEquals(beforeCursor, [], "versions before the killed member's committed cursors delivered again");
      await sinkUpdates(bootstrap, sim, "two members");

      // Source offsets are shared: both members list every table's offset, the same ones.
      await waitFor(
        async () => {
          const lists = await Promise.all(survivors.map(async (m) => {
            const body = (await m.request("GET", "/connectors/src/offsets")).body;
            return JSON.stringify(
              (body?.offsets ?? []).map((o: { partition: { table: string } }) => o).sort((a: any, b: any) =>
                a.partition.table < b.partition.table ? -1 : 1
              ),
            );
          }));
          return lists[0] === lists[1] && JSON.parse(lists[0]).length === TABLES.length;
        },
        60_000,
        "the same offsets for every table on both members",
      );

      // A REST change on one member is applied by all.
      assertEquals((await survivors[0].request("PUT", "/connectors/src/pause")).status, 202);
      await waitFor(
        async () => (await connectorStatus(survivors[1], "src"))?.connector.state === "PAUSED",
        30_000,
        "PAUSED on the other member",
      );
      assertEquals((await survivors[1].request("PUT", "/connectors/src/resume")).status, 202);
      await waitFor(
        async () => (await connectorStatus(survivors[0], "src"))?.connector.state === "RUNNING",
        30_000,
        "RUNNING again on the first member",
      );
      const changed = { ...sourceConfig(sim), "svc.source.batch.size": "77" };
      assertEquals((await survivors[1].request("PUT", "/connectors/src/config", changed)).status, 200);
      await waitFor(
        async () =>
          (await survivors[0].request("GET", "/connectors/src/config")).body?.["svc.source.batch.size"] ===
            "77",
        30_000,
        "the config change on the other member",
      );

      // Graceful stop: the last member takes everything over from the committed cursors. A restarted table
      // re-reads each cursor's own second (svc.source.overlap.seconds counts whole seconds before the cursor),
      // but the final offsets list the versions already sent there: nothing is delivered twice.
      const before = await settledDeliveries(bootstrap, sim);
      const leaving = survivors[1];
      assertEquals((await leaving.stop("SIGTERM")).code, 0);
      const finalOffsets = (await readTopicWithKcat(bootstrap, `${P}.offsets`))
        .filter((r) => r.value !== null && "overlap_sent" in JSON.parse(r.value));
      assert(finalOffsets.length > 0, "the stopped member's final offsets list the versions it sent");
      members.splice(members.indexOf(leaving), 1);
      await waitFor(
        async () => {
          const src = await placement(survivors[0], "src", sourceTasks);
          const snk = await placement(survivors[0], "snk", 2);
          return src && snk && src.size === 1 && snk.size === 1 && src.has(host(survivors[0]));
        },
        90_000,
        "every task on the last member",
      );
      sim.writer.start({ rowsPerSecond: 40, table: "incident", insertRatio: 0.3 });
      await new Promise((r) => setTimeout(r, 2000));
      sim.writer.stop();
      const after = await allDelivered(bootstrap, sim);
      const again = [...after].filter(([v, d]) => d.count > (before.get(v)?.count ?? 1));
      console.log(`graceful stop: ${again.length} row versions delivered again`);
      assertEquals(again, [], "row versions delivered again after a graceful stop");

      await sinkUpdates(bootstrap, sim, "one member");
    } catch (e) {
      for (const m of members) {
        console.log(
          `--- ${host(m)}\n` +
            m.output().split("\n").filter((l) => /group|error|warn/i.test(l)).slice(-30).join("\n"),
        );
      }
      throw e;
    } finally {
      sim.writer.stop();
      await Promise.all(members.map((m) => m.stop("SIGTERM").catch(() => {})));
      await sim.stop();
    }
  },
});
