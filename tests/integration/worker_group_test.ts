/**
 * Group mode through three real daemon processes (same group.id) against the instance simulator and a Kafka
 * broker: one 4-table source (4 tasks) and one sink (2 tasks).
 *  - the six tasks spread over all three members (2 each), and status agrees on every member;
 *  - no table is polled by two members in steady state (simulator request counts per table);
 *  - kill -9 of a member: its tasks move to the others and every row version still reaches the topics;
 *  - a config change over REST on one member is applied by all;
 *  - a graceful stop moves the stopped member's tasks with no duplicate for a table without overlap.
 * The broker is the run's real Kafka broker (tests/support/kafka_broker.ts).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { type DaemonProcess, startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Group-Heron-23";
const TABLES = ["incident", "problem", "sys_user", "cmdb_ci"];
const POLL_MS = 300;
const SESSION_TIMEOUT_MS = 6000;
const startBroker = () => startKafkaBroker();

function sourceConfig(sim: Simulator) {
  const config: Record<string, string | number | boolean> = {
    "connector.class": "TableSourceConnector",
    "svc.url": sim.url,
    "svc.auth.username": "admin",
    "svc.auth.password": PASSWORD,
    "svc.tables": TABLES.join(","),
    "svc.source.poll.interval.ms": POLL_MS,
    "svc.source.startup.probe": false,
    "tasks.max": 4,
  };
  for (const t of TABLES) {
    config[`svc.table.${t}.name`] = t;
    config[`svc.table.${t}.topic`] = `g.${t}`;
    config[`svc.table.${t}.fields`] = "sys_id,sys_updated_on,sys_mod_count,number";
  }
  return config;
}

function sinkConfig(sim: Simulator) {
  return {
    "connector.class": "TableSinkConnector",
    "topics": "g.sink",
    "svc.url": sim.url,
    "svc.auth.username": "admin",
    "svc.auth.password": PASSWORD,
    "svc.sink.table": "incident",
    "tasks.max": 2,
  };
}

function worker(bootstrap: string) {
  return {
    "bootstrap.servers": bootstrap,
    "group.id": "tablesync-it",
    "offset.storage.topic": "g.offsets",
    "config.storage.topic": "g.configs",
    "status.storage.topic": "g.status",
    "session.timeout.ms": SESSION_TIMEOUT_MS,
    "heartbeat.interval.ms": 1000,
    "offset.flush.interval.ms": 200,
  };
}

type Status = {
  connector: { state: string; worker_id: string };
  tasks: { id: number; state: string; worker_id: string }[];
};

async function status(member: DaemonProcess, name: string): Promise<Status | null> {
  const res = await member.request("GET", `/connectors/${name}/status`);
  return res.status === 200 ? res.body : null;
}

/** worker_id → task ids it runs, as `member` reports; null unless every task is RUNNING. */
async function placement(
  member: DaemonProcess,
  name: string,
  tasks: number,
): Promise<Map<string, number[]> | null> {
  const s = await status(member, name);
  if (!s || s.tasks.length !== tasks || s.tasks.some((t) => t.state !== "RUNNING")) return null;
  const out = new Map<string, number[]>();
  for (const t of s.tasks) out.set(t.worker_id, [...(out.get(t.worker_id) ?? []), t.id]);
  return out;
}

const host = (m: DaemonProcess) => new URL(m.url).host;

/** Every row's current version is on its table's topic. */
async function everyVersionDelivered(bootstrap: string, sim: Simulator): Promise<boolean> {
  for (const t of TABLES) {
    const seen = new Set(
      (await readTopicWithKcat(bootstrap, `g.${t}`)).map((r) =>
        `${r.key}/${JSON.parse(r.value!).sys_mod_count}`
      ),
    );
    const table = sim.table(t);
    if (
      !table.sysIds().every((id) =>
        seen.has(`${JSON.stringify(id)}/${table.get(id)!.sys_mod_count}`) ||
        seen.has(`${id}/${table.get(id)!.sys_mod_count}`)
      )
    ) {
      return false;
    }
  }
  return true;
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
    await kafka.createTopic("g.offsets", 5);
    await kafka.createTopic("g.configs", 1);
    await kafka.createTopic("g.status", 5);
    await kafka.createTopic("g.sink", 4);
    for (const t of TABLES) await kafka.createTopic(`g.${t}`, 2);
    const members: DaemonProcess[] = [];
    try {
      // The first member's file seeds the config topic; the others start with no connectors of their own.
      const connectors = [
        { name: "src", config: sourceConfig(sim) },
        { name: "snk", config: sinkConfig(sim) },
      ];
      members.push(
        ...await Promise.all([
          startDaemonProcess({ worker: worker(kafka.bootstrapServers), connectors }, { timeoutMs: 60_000 }),
          startDaemonProcess({ worker: worker(kafka.bootstrapServers), connectors: [] }, {
            timeoutMs: 60_000,
          }),
          startDaemonProcess({ worker: worker(kafka.bootstrapServers), connectors: [] }, {
            timeoutMs: 60_000,
          }),
        ]),
      );

      // Spread: every task on one member, loads within one, every member busy; every member's status agrees.
      const sourceTasks = await waitFor(
        async () => (await members[1].request("GET", "/connectors/src/tasks")).body?.length,
        60_000,
        "source tasks",
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
      assertEquals([...spread.keys()].every((w) => members.some((m) => host(m) === w)), true);

      // Steady state: in a 6 s window each table is polled about once per poll interval by one member.
      await new Promise((r) => setTimeout(r, 3000));
      const from = sim.journal.entries().length;
      await new Promise((r) => setTimeout(r, 6000));
      const window = sim.journal.entries().slice(from);
      for (const t of TABLES) {
        const polls = window.filter((e) => e.method === "GET" && e.table === t).length;
        console.log(`steady state: ${t} polled ${polls} times in 6 s (poll interval ${POLL_MS} ms)`);
        assert(polls > 0, `${t} was not polled`);
        assert(polls <= (6000 / POLL_MS) * 1.5 + 2, `${t} polled ${polls} times: by more than one member`);
      }

      // kill -9 of the member running source task 0's table: its tasks move, no row lost.
      sim.writer.start({ rowsPerSecond: 40, table: "incident", insertRatio: 0.3 });
      await new Promise((r) => setTimeout(r, 2000));
      const victim = members.find((m) => spread.get(host(m))?.length)!;
      const survivors = members.filter((m) => m !== victim);
      const killedAt = performance.now();
      await victim.stop("SIGKILL");
      await waitFor(
        async () => {
          const p = await placement(survivors[0], "src", sourceTasks);
          return p && !p.has(host(victim)) &&
            (await placement(survivors[0], "snk", 2))?.has(host(victim)) === false;
        },
        90_000,
        "the killed member's tasks running elsewhere",
      );
      console.log(`failover after kill -9: ${Math.round(performance.now() - killedAt)} ms`);
      await new Promise((r) => setTimeout(r, 2000));
      sim.writer.stop();
      await waitFor(
        () => everyVersionDelivered(kafka.bootstrapServers, sim),
        60_000,
        "every row version on the topics",
      );

      // A REST change on one member is applied by all: pause the source on survivor 0, seen on survivor 1.
      assertEquals((await survivors[0].request("PUT", "/connectors/src/pause")).status, 202);
      await waitFor(
        async () => (await status(survivors[1], "src"))?.connector.state === "PAUSED",
        30_000,
        "PAUSED on the other member",
      );
      assertEquals((await survivors[1].request("PUT", "/connectors/src/resume")).status, 202);
      await waitFor(
        async () => (await status(survivors[0], "src"))?.connector.state === "RUNNING",
        30_000,
        "RUNNING again",
      );
      const changed = { ...sourceConfig(sim), "svc.source.batch.size": 77 };
      assertEquals((await survivors[1].request("PUT", "/connectors/src/config", changed)).status, 200);
      await waitFor(
        async () =>
          (await survivors[0].request("GET", "/connectors/src/config")).body?.["svc.source.batch.size"] ===
            "77",
        30_000,
        "config change on the other member",
      );

      // Graceful stop: the other survivor takes everything.
      const stopped = survivors[1];
      const { code } = await stopped.stop("SIGTERM");
      assertEquals(code, 0);
      await waitFor(
        async () => {
          const p = await placement(survivors[0], "src", sourceTasks);
          const s = await placement(survivors[0], "snk", 2);
          return p && s && p.size === 1 && s.size === 1 && p.has(host(survivors[0]));
        },
        90_000,
        "all tasks on the last member",
      );
      members.splice(members.indexOf(victim), 1);
    } catch (e) {
      for (const m of members) {
        console.log(`--- ${host(m)}`, JSON.stringify(await status(m, "src").catch(() => null)));
        console.log(
          m.output().split("\n").filter((l) => /group|assign|error|ERROR|warn/i.test(l)).slice(-25).join(
            "\n",
          ),
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
