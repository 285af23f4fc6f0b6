/**
 * Exactly-once in a worker group of two daemons (real broker, one source task, a live writer):
 *  - the task's owner is SIGSTOPped (a paused process, as in a long GC or a network split); after the session
 *    timeout the other member takes the task, which fences the old owner's transactional id (and the coordinator
 *    aborts the transaction the old owner had open). Resumed, the old owner's late commit is refused
 *    (ProducerFencedError in its log), or it notices its expired session first and stops with nothing committed;
 *    either way nothing of that transaction becomes visible;
 *  - then a handover: the new owner stops gracefully and the task moves back.
 * Read with read_committed at the end: no row version twice, every final version there, each key in order.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import {
  describeVerdict,
  type ExactlyOnceVerdict,
  exactlyOnceVerdict,
} from "../support/exactly_once_check.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Fence-Otter-5";
const SESSION_TIMEOUT_MS = 6000;

Deno.test({
  name:
    "exactly-once group: a SIGSTOPped owner is fenced once its task moved; a handover; 0 duplicates, 0 missing",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const sim = await startSimulator({ port: 0, seed: { incident: 2000 }, users: [`admin:${PASSWORD}`] });
    await using kafka = await startKafkaBroker();
    const p = uniqueName("eosg");
    const topic = `${p}.incident`;
    await kafka.createTopic(topic, 3);
    const config = {
      worker: {
        "bootstrap.servers": kafka.bootstrapServers,
        "group.id": `${p}-workers`,
        "offset.storage.topic": `${p}.offsets`,
        "config.storage.topic": `${p}.configs`,
        "status.storage.topic": `${p}.status`,
        "offset.storage.replication.factor": 1,
        "offset.storage.partitions": 3,
        "session.timeout.ms": SESSION_TIMEOUT_MS,
        "heartbeat.interval.ms": 1000,
        "exactly.once.source.support": "enabled",
      },
      connectors: [{
        name: "eosg",
        config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
          "exactly.once.support": "required",
          // A transaction stays open for 10 s while rows stream in, so the pause lands inside one (but for the
          // ~200 ms between a commit and the next poll's records): the resumed owner's commit is then refused.
          "transaction.boundary": "interval",
          "transaction.boundary.interval.ms": 10_000,
          "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,number",
          "svc.source.batch.size": 200,
          "svc.source.poll.interval.ms": 200,
          "svc.source.overlap.seconds": 2,
          "svc.source.startup.probe": false,
        }),
      }],
    };
    const table = sim.table("incident");
    const members: DaemonProcess[] = [];
    const verdict = () => exactlyOnceVerdict(kafka.bootstrapServers, topic, table, new Set());
    const ownerOf = async (from: DaemonProcess) => {
      const res = await from.request("GET", "/connectors/eosg/status").catch(() => null);
      const task = res?.status === 200 ? res.body.tasks?.[0] : undefined;
      return task?.state === "RUNNING"
        ? members.find((m) => new URL(m.url).host === task.worker_id)
        : undefined;
    };
    sim.writer.start({ rowsPerSecond: 50, table: "incident", insertRatio: 0.3 });
    try {
      members.push(await startDaemonProcess(config, { timeoutMs: 60_000 }));
      members.push(await startDaemonProcess(config, { timeoutMs: 60_000 }));
      const zombie = await waitFor(() => ownerOf(members[1]), 60_000, "the task running on a member");
      const survivor = members.find((m) => m !== zombie)!;
      await waitFor(
        async () => (await verdict()).records > 500,
        60_000,
        "records committed by the first owner",
      );

      // Paused mid-stream: its group session expires and the survivor takes the task, fencing the zombie.
      zombie.process.kill("SIGSTOP");
      await waitFor(
        async () => (await ownerOf(survivor)) === survivor,
        60_000,
        "the task moving to the survivor",
      );
      await waitFor(
        () => survivor.output().includes("exactly-once: transactional producer initialised"),
        30_000,
        "the survivor's task fencing the zombie",
      );
      const before = (await verdict()).records;
      await waitFor(async () => (await verdict()).records > before, 30_000, "the survivor committing");
      zombie.process.kill("SIGCONT");
      // Resumed, the zombie either sends a transactional request first and is refused (fenced), or notices first
      // that its group session expired and stops its work with nothing committed (when the pause fell between a
      // commit and the next records, or under load). Either way it never commits after the survivor started:
      // the verdict below finds no duplicate; tests/kafka/transaction_fencing_test.ts covers the refusal itself.
      await waitFor(
        () =>
          zombie.output().includes("was fenced by a newer producer") ||
          zombie.output().includes("group membership lost; stopping this member's work"),
        60_000,
        "the resumed zombie refused (fenced) or stopping its work",
      ).catch((e) => {
        throw new Error(`${e.message}: ${zombie.output().split("\n").slice(-40).join("\n")}`);
      });

      // Handover: the survivor stops gracefully; the zombie, back in the group, takes the task again.
      await survivor.stop("SIGTERM");
      await waitFor(
        async () => (await ownerOf(zombie)) === zombie,
        60_000,
        "the task back on the first member",
      );
      sim.writer.stop();
      let last: ExactlyOnceVerdict | undefined;
      await waitFor(
        async () => {
          last = await verdict();
          return last.missing.length === 0;
        },
        120_000,
        "every final version committed",
      ).catch((e) => {
        throw new Error(`${e.message}: ${last && describeVerdict(last)}`);
      });
      console.log(`exactly-once group (SIGSTOP, fencing, handover): ${describeVerdict(last!)}`);
      assertEquals(last!.duplicates, [], describeVerdict(last!));
      assertEquals(last!.disordered, [], describeVerdict(last!));
      assert(last!.records >= table.count);
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
