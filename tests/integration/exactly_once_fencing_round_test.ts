/**
 * The zombie-fencing round (KIP-618) in a worker group of two daemons (real broker, two tables, a live writer):
 * an exactly-once source with tasks.max=2 runs one task per member. The member of task 1 is SIGSTOPped (a paused
 * process, as in a long GC or a network split) while task 1 has a transaction open; tasks.max is set to 1 over
 * REST on the other member, so task 1's table moves to task 0 and no task initialises `<group>-<connector>-1`
 * again. Only the fencing round, run before task 0 of the new config starts, fences that id: resumed, the
 * zombie's commit is refused. Without the round it commits the rows task 0 emitted again, which the
 * read_committed read-back counts as duplicates.
 */
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import {
  describeVerdict,
  type ExactlyOnceVerdict,
  exactlyOnceVerdict,
} from "../support/exactly_once_check.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Round-Heron-8";
const TABLES = ["incident", "problem"];

Deno.test({
  name: "exactly-once group: tasks.max 2 -> 1 fences the vanished task's id; its paused owner cannot commit",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const sim = await startSimulator({
      port: 0,
      seed: { incident: 1000, problem: 1000 },
      users: [`admin:${PASSWORD}`],
    });
    await using kafka = await startKafkaBroker();
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
    const config = {
      worker: {
        "bootstrap.servers": kafka.bootstrapServers,
        "group.id": `${p}-workers`,
        "offset.storage.topic": `${p}.offsets`,
        "config.storage.topic": `${p}.configs`,
        "status.storage.topic": `${p}.status`,
        "offset.storage.replication.factor": 1,
        "offset.storage.partitions": 3,
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 1000,
        "exactly.once.source.support": "enabled",
      },
      connectors: [{ name: "eosf", config: connector }],
    };
    const members: DaemonProcess[] = [];
    const memberAt = (workerId: string | undefined) => members.find((m) => new URL(m.url).host === workerId);
    const status = async (from: DaemonProcess) => {
      const res = await from.request("GET", "/connectors/eosf/status").catch(() => null);
      return res?.status === 200
        ? res.body as { tasks: { id: number; state: string; worker_id: string }[] }
        : null;
    };
    const written = (table: string) => writtenRecords(kafka.bootstrapServers, topics[table]);
    const verdict = (table: string) =>
      exactlyOnceVerdict(kafka.bootstrapServers, topics[table], sim.table(table), new Set());
    try {
      members.push(await startDaemonProcess(config, { timeoutMs: 60_000 }));
      members.push(await startDaemonProcess(config, { timeoutMs: 60_000 }));
      // One task on each member.
      const tasks = await waitFor(
        async () => {
          const s = await status(members[0]);
          const running = s?.tasks.filter((t) => t.state === "RUNNING") ?? [];
          return running.length === 2 && running[0].worker_id !== running[1].worker_id && running;
        },
        90_000,
        "both tasks running, one on each member",
      );
      const zombie = memberAt(tasks.find((t) => t.id === 1)!.worker_id)!;
      const survivor = members.find((m) => m !== zombie)!;
      const taskConfigs = (await survivor.request("GET", "/connectors/eosf/tasks")).body;
      const moved = taskConfigs[1].config["svc.tables"] as string;
      assertEquals(TABLES.includes(moved), true, `task 1 reads one table, got ${moved}`);

      sim.writer.start({ rowsPerSecond: 40, table: moved, insertRatio: 0.2 });
      const seeded = (await verdict(moved)).records;
      await waitFor(
        async () => (await verdict(moved)).records > seeded + 100,
        60_000,
        "task 1 committing rows",
      );

      // Paused with a transaction of the moved table's rows open; the survivor runs the connector with one task.
      zombie.process.kill("SIGSTOP");
      const put = await survivor.request("PUT", "/connectors/eosf/config", {
        ...connector,
        "tasks.max": "1",
      });
      assertEquals(put.status, 200, JSON.stringify(put.body));
      // Written, committed or not: without the round the zombie's open transaction holds back what
      // read_committed readers see of those partitions until it ends.
      const before = await written(moved);
      await waitFor(
        () => survivor.output().includes("zombie-fencing round: fenced the 2 transactional id(s)"),
        60_000,
        "the survivor's fencing round",
      ).catch((e) => {
        throw new Error(`${e.message}: ${survivor.output().split("\n").slice(-30).join("\n")}`);
      });
      await waitFor(
        async () => (await written(moved)) > before,
        60_000,
        "task 0 sending the moved table",
      ).catch((e) => {
        throw new Error(`${e.message}: ${survivor.output().split("\n").slice(-60).join("\n")}`);
      });

      // Resumed, the zombie's task commits (at its boundary, or when it stops on its lost session): refused.
      zombie.process.kill("SIGCONT");
      await waitFor(
        () => zombie.output().includes("was fenced by a newer producer"),
        60_000,
        "the resumed zombie's commit refused (fenced)",
      ).catch(async (e) => {
        throw new Error(`${e.message}; the moved table now reads ${describeVerdict(await verdict(moved))}`);
      });

      sim.writer.stop();
      for (const table of TABLES) {
        let last: ExactlyOnceVerdict | undefined;
        await waitFor(
          async () => {
            last = await verdict(table);
            return last.missing.length === 0;
          },
          120_000,
          `every final version of ${table} committed`,
        ).catch((e) => {
          throw new Error(`${e.message}: ${last && describeVerdict(last)}`);
        });
        console.log(
          `exactly-once fencing round, ${table}${table === moved ? " (moved)" : ""}: ${
            describeVerdict(last!)
          }`,
        );
        assertEquals(last!.duplicates, [], describeVerdict(last!));
        assertEquals(last!.disordered, [], describeVerdict(last!));
      }
    } finally {
      sim.writer.stop();
      for (const m of members) {
        try {
          m.process.kill("SIGCONT");
        } catch { /* exited */ }
        await m.stop("SIGKILL");
      }
      await sim.stop();
    }
  },
});

/** Records in the topic, committed or not (librdkafka reads read_committed unless told otherwise). */
async function writtenRecords(bootstrapServers: string, topic: string): Promise<number> {
  const { code, stdout, stderr } = await new Deno.Command("kcat", {
    args: [
      ...["-C", "-b", bootstrapServers, "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%o\\n"],
      ...["-X", "isolation.level=read_uncommitted"],
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`kcat failed (${code}): ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout).split("\n").filter((l) => l.trim() !== "").length;
}
