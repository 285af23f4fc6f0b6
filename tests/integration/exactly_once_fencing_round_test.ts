/**
 * The zombie-fencing round (KIP-618) on the real broker, two tables and a live writer: an exactly-once source
 * with tasks.max=2 runs; the process running task 1 is SIGSTOPped (a paused process, as in a long GC or a
 * network split) while task 1 has a transaction open; the connector is set to tasks.max=1, so task 1's table
 * moves to task 0 and no task initialises `<group>-<connector>-1` again. Only the fencing round, run before
 * task 0 of the new config starts, fences that id: resumed, the paused process's commit is refused. Without the
 * round it commits rows task 0 emitted again, which the read_committed read-back counts as duplicates.
 *  - worker group of two daemons: tasks.max changed over REST on the other member (the round is recorded in
 *    the config topic);
 *  - standalone: a second daemon started on the paused one's state directory with tasks.max=1 in its file (a
 *    replacement started while the old process hangs; the round's record is in the connector state file).
 */
import { assertEquals } from "../support/assert.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import {
  connectorStatus,
  type DaemonConfig,
  type DaemonProcess,
  startDaemonProcess,
} from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { exactlyOnceWorker } from "../support/exactly_once_worker.ts";
import { consumeToEndWithKcat } from "../support/kafka_helpers.ts";
import {
  describeVerdict,
  type ExactlyOnceVerdict,
  exactlyOnceVerdict,
} from "../support/exactly_once_check.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Round-Heron-8";
const TABLES = ["incident", "problem"];

type TaskStatus = { id: number; state: string; worker_id: string };

/** What both variants share: the instance, the topics, the connector's config and the read-backs. */
async function scenario(sim: Simulator, kafka: KafkaBroker) {
  const p = uniqueName("eosf");
  const topics = Object.fromEntries(TABLES.map((t) => [t, `${p}.${t}`]));
  for (const topic of Object.values(topics)) await kafka.createTopic(topic, 3);
  const connector = sourceConnectorConfig(sim.url, PASSWORD, topics, {
    "tasks.max": 2,
    "exactly.once.support": "required",
    // A transaction stays open for 5 s while rows stream in, so the pause lands inside one (but for the
    // moments between a commit and the next poll's records).
    "transaction.boundary": "interval",
    "transaction.boundary.interval.ms": 5000,
    ...Object.fromEntries(
      TABLES.map((t) => [`svc.table.${t}.fields`, "sys_id,sys_updated_on,sys_mod_count,number"]),
    ),
    "svc.source.batch.size": 200,
    "svc.source.poll.interval.ms": 200,
    "svc.source.overlap.seconds": 2,
    "svc.source.startup.probe": false,
  });
  const worker = exactlyOnceWorker(kafka.bootstrapServers, `${p}.offsets`, 3);
  const verdict = (table: string) =>
    exactlyOnceVerdict(kafka.bootstrapServers, topics[table], sim.table(table), new Set());
  return {
    p,
    connector,
    worker,
    verdict,
    /** Written, committed or not: a zombie's open transaction holds back what read_committed readers see. */
    written: (table: string) => writtenRecords(kafka.bootstrapServers, topics[table]),
    /**
     * The table of task 1, once the writer changes its rows, task 1 has committed some of them, and its next
     * transaction has been open for a moment (so a pause now finds rows in it).
     */
    async streamTaskOne(from: DaemonProcess): Promise<string> {
      const taskConfigs = (await from.request("GET", "/connectors/eosf/tasks")).body;
      const moved = taskConfigs[1].config["svc.tables"] as string;
      assertEquals(TABLES.includes(moved), true, `task 1 reads one table, got ${moved}`);
      sim.writer.start({ rowsPerSecond: 40, table: moved, insertRatio: 0.2 });
      const seeded = (await verdict(moved)).records;
      const first = await waitFor(
        async () => {
          const n = (await verdict(moved)).records;
          return n > seeded + 100 && n;
        },
        60_000,
        "task 1 committing rows",
      );
      await waitFor(async () => (await verdict(moved)).records > first, 30_000, "task 1's next commit");
      await new Promise((r) => setTimeout(r, 1500));
      return moved;
    },
  };
}

async function status(from: DaemonProcess): Promise<TaskStatus[]> {
  return (await connectorStatus(from, "eosf"))?.tasks ?? [];
}

/**
 * With the zombie paused and the new config applied by `successor`: the round, the moved table's rows sent by
 * the new task 0, the zombie resumed and refused, then every final version read back once.
 */
async function fencedAndExactlyOnce(
  s: Awaited<ReturnType<typeof scenario>>,
  sim: Simulator,
  moved: string,
  zombie: DaemonProcess,
  successor: DaemonProcess,
  before: number,
  label: string,
): Promise<void> {
  const tail = (d: DaemonProcess, n: number) => d.output().split("\n").slice(-n).join("\n");
  await waitFor(
    () => successor.output().includes("zombie-fencing round: fenced the 2 transactional id(s)"),
    60_000,
    "the fencing round",
  ).catch((e) => {
    throw new Error(`${e.message}: ${tail(successor, 30)}`);
  });
  await waitFor(async () => (await s.written(moved)) > before, 60_000, "task 0 sending the moved table")
    .catch((e) => {
      throw new Error(`${e.message}: ${tail(successor, 40)}`);
    });

  // Resumed, the zombie's task commits (at its boundary, or when it stops): refused.
  zombie.process.kill("SIGCONT");
  await waitFor(
    () => zombie.output().includes("was fenced by a newer producer"),
    60_000,
    "the resumed zombie's commit refused (fenced)",
  ).catch(async (e) => {
    throw new Error(
      `${e.message}; the moved table now reads ${describeVerdict(await s.verdict(moved))}; ${
        tail(zombie, 40)
      }`,
    );
  });

  sim.writer.stop();
  for (const table of TABLES) {
    let last: ExactlyOnceVerdict | undefined;
    await waitFor(
      async () => {
        last = await s.verdict(table);
        return last.missing.length === 0;
      },
      120_000,
      `every final version of ${table} committed`,
    ).catch((e) => {
      throw new Error(`${e.message}: ${last && describeVerdict(last)}`);
    });
    const which = table === moved ? " (moved)" : "";
    console.log(`exactly-once fencing round, ${label}, ${table}${which}: ${describeVerdict(last!)}`);
    assertEquals(last!.duplicates, [], describeVerdict(last!));
    assertEquals(last!.disordered, [], describeVerdict(last!));
  }
}

async function withProcesses(
  run: (sim: Simulator, kafka: KafkaBroker, daemons: DaemonProcess[]) => Promise<void>,
): Promise<void> {
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 1000, problem: 1000 },
    users: [`admin:${PASSWORD}`],
  });
  await using kafka = await startKafkaBroker();
  const daemons: DaemonProcess[] = [];
  try {
    await run(sim, kafka, daemons);
  } finally {
    sim.writer.stop();
    for (const d of daemons) {
      try {
        d.process.kill("SIGCONT");
      } catch { /* exited */ }
      await d.stop("SIGKILL");
    }
    await sim.stop();
  }
}

Deno.test({
  name: "exactly-once group: tasks.max 2 -> 1 fences the vanished task's id; its paused owner cannot commit",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withProcesses(async (sim, kafka, members) => {
      const s = await scenario(sim, kafka);
      const config: DaemonConfig = {
        worker: {
          ...s.worker,
          "group.id": `${s.p}-workers`,
          "config.storage.topic": `${s.p}.configs`,
          "status.storage.topic": `${s.p}.status`,
          "session.timeout.ms": 6000,
          "heartbeat.interval.ms": 1000,
        },
        connectors: [{ name: "eosf", config: s.connector }],
      };
      members.push(await startDaemonProcess(config, { timeoutMs: 60_000 }));
      members.push(await startDaemonProcess(config, { timeoutMs: 60_000 }));
      const tasks = await waitFor(
        async () => {
          const running = (await status(members[0])).filter((t) => t.state === "RUNNING");
          return running.length === 2 && running[0].worker_id !== running[1].worker_id && running;
        },
        90_000,
        "both tasks running, one on each member",
      );
      const zombie = members.find((m) => new URL(m.url).host === tasks.find((t) => t.id === 1)!.worker_id)!;
      const survivor = members.find((m) => m !== zombie)!;
      const moved = await s.streamTaskOne(survivor);

      // Paused with a transaction of the moved table's rows open; the survivor runs the connector with one task.
      zombie.process.kill("SIGSTOP");
      const put = await survivor.request("PUT", "/connectors/eosf/config", {
        ...s.connector,
        "tasks.max": "1",
      });
      assertEquals(put.status, 200, JSON.stringify(put.body));
      await fencedAndExactlyOnce(s, sim, moved, zombie, survivor, await s.written(moved), "group");
    }),
});

Deno.test({
  name: "exactly-once standalone: a daemon started with tasks.max 1 fences the paused old daemon's task 1",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withProcesses(async (sim, kafka, daemons) => {
      const s = await scenario(sim, kafka);
      const old = await startDaemonProcess({
        worker: s.worker,
        connectors: [{ name: "eosf", config: s.connector }],
      });
      daemons.push(old);
      await waitFor(
        async () => (await status(old)).filter((t) => t.state === "RUNNING").length === 2,
        60_000,
        "both tasks running",
      );
      const moved = await s.streamTaskOne(old);

      // The old daemon hangs with a transaction open; a replacement starts on its state directory with one task.
      old.process.kill("SIGSTOP");
      const before = await s.written(moved);
      const replacement = await startDaemonProcess(
        { worker: s.worker, connectors: [{ name: "eosf", config: { ...s.connector, "tasks.max": 1 } }] },
        { dir: old.dir },
      );
      daemons.push(replacement);
      await fencedAndExactlyOnce(s, sim, moved, old, replacement, before, "standalone");
    }),
});

/** Records in the topic, committed or not (librdkafka reads read_committed unless told otherwise). */
async function writtenRecords(bootstrapServers: string, topic: string): Promise<number> {
  const stdout = await consumeToEndWithKcat(bootstrapServers, topic, [
    ...["-f", "%o\\n", "-X", "isolation.level=read_uncommitted"],
  ]);
  return new TextDecoder().decode(stdout).split("\n").filter((l) => l.trim() !== "").length;
}
