/**
 * Reconcile passes of an exactly-once source connector (exactly.once.source.support=enabled,
 * `transaction.boundary=interval`, a transaction open for 30 s): a pass's repairs go out in the task's
 * transactions, and their state entries are written only once the transaction committed. The daemon is killed
 * (kill -9) after a pass sent its repairs into an open transaction: the restarted task's producer aborts it, so
 * the topic never holds those repairs. Since no entry was written for them, the next pass finds the same drift
 * and repairs it again (an entry written as the record joined its transaction would have hidden it for good:
 * `tablesync verify` would exit 1 after every pass). Then verify exits 0, and a pass over the unchanged table
 * repairs nothing.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { type DaemonConfig, type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { runVerify } from "../support/verify_command.ts";
import { nextPass, repairCount } from "../support/reconcile_passes.ts";
import { exactlyOnceWorker } from "../support/exactly_once_worker.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Eos-Mend-8";
const FIELDS = "sys_id,sys_updated_on,sys_mod_count,short_description,state";
/**
 * How long a transaction stays open: far longer than a pass of 100 rows and a kill, and well inside the
 * producer's transaction timeout (60 s), past which the broker aborts the transaction and fences the producer.
 */
const TRANSACTION_MS = 30_000;

/**
 * The connector's name, and so its task's transactional id (`tablesync-eos-mend-0`): no other test on the shared
 * broker may use it, or their producers would fence each other.
 */
const CONNECTOR = "eos-mend";

const pass = (daemon: DaemonProcess, what: string) => nextPass(daemon, CONNECTOR, "incident", what);

Deno.test("reconcile under exactly-once: repairs of a transaction that never committed leave no state entry, so the next pass repairs them again", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 100 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("eos-mend.incident");
  await kafka.createTopic(topic, 3);
  const config: DaemonConfig = {
    worker: exactlyOnceWorker(kafka.bootstrapServers, uniqueName("eos-mend.offsets")),
    connectors: [{
      name: CONNECTOR,
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
        "exactly.once.support": "required",
        "transaction.boundary": "interval",
        "transaction.boundary.interval.ms": TRANSACTION_MS,
        "svc.table.incident.fields": FIELDS,
        "svc.source.poll.interval.ms": 500,
        "svc.source.reconcile.interval.seconds": 3600,
        "svc.source.reconcile.state.topic": uniqueName("eos-mend-state"),
      }),
    }],
  };
  let daemon = await startDaemonProcess(config);
  const verify = () => runVerify(daemon.configPath, CONNECTOR);
  try {
    // The first transaction commits TRANSACTION_MS after the backfill's first send.
    let last: Awaited<ReturnType<typeof verify>> | undefined;
    await waitFor(async () => (last = await verify()).code === 0, 150_000, "the table committed to its topic")
      .catch((e) => {
        const log = daemon.output().split("\n").slice(-30).join("\n");
        throw new Error(
          `${e.message}; verify said: ${last?.out} ${last?.err}; the daemon's log ends:\n${log}`,
        );
      });
    const seeded = await pass(daemon, "the first pass (seeds the state)");
    assertEquals(repairCount(seeded), 0, JSON.stringify(seeded));

    const ids = sim.table("incident").sysIds();
    sim.drift.silentUpdate("incident", ids[5], { short_description: "changed by a fix script" });
    sim.drift.silentUpdate("incident", ids[9], { state: "7" });
    sim.drift.purge("incident", ids[20]);
    sim.drift.insertDated("incident", { short_description: "restored from XML" }, "2021-01-01 00:00:00");
    const drift: Record<string, number> = { "silent-update": 2, "rolled-back": 0, missing: 1, deleted: 1 };

    const asked = Date.now();
    const lost = await pass(daemon, "a pass whose transaction never commits");
    assertEquals({ ...lost.repairs }, drift, JSON.stringify(lost));
    await daemon.stop("SIGKILL");
    // Its repairs joined a transaction opened by the pass's first repair, open for TRANSACTION_MS: had the kill
    // come after its commit, the pass below would find nothing to repair.
    const killedAfterMs = Date.now() - asked;

    daemon = await startDaemonProcess(config, { dir: daemon.dir });
    const again = await pass(daemon, "the pass after the restart");
    assertEquals(
      { ...again.repairs },
      drift,
      `${JSON.stringify(again)}; killed ${killedAfterMs} ms after the pass began`,
    );
    const equal = await waitFor(
      async () => {
        const v = await verify();
        return v.code === 0 ? v : null;
      },
      150_000,
      "the repairs committed",
    );
    assert(/missing 0, stale 0, extra 0: equal/.test(equal.out), equal.out);
    const clean = await pass(daemon, "a pass over the unchanged table");
    assertEquals(repairCount(clean), 0, JSON.stringify(clean));
  } catch (error) {
    const lines = daemon.output().split("\n").filter((l) =>
      /reconcile|state topic|transaction|WARN|ERROR/i.test(l)
    );
    console.log(lines.slice(-30).join("\n"));
    throw error;
  } finally {
    await daemon.stop("SIGTERM").catch(() => {});
    await sim.stop();
  }
});
