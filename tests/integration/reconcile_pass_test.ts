/**
 * Reconcile passes through the real daemon on a real broker. `problem` reconciles every 3 s (the per-table
 * override): its passes over the unchanged table repair nothing. `incident` (the connector's interval, an hour)
 * reconciles when asked over REST: its first pass seeds the state from the topic and repairs nothing; after
 * drift the cursor cannot see (two silent updates, a purge without audit, an insert with an old timestamp)
 * `tablesync verify` exits 1, and after one pass (repairs by kind as expected) it exits 0; likewise after a
 * rollback (a restore of an earlier snapshot: rows back at older versions, a row inserted since gone). A
 * connector whose passes are off answers 409, an unknown alias or connector 404.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { runVerify } from "../support/verify_command.ts";
import { nextPass as passOf, repairCount } from "../support/reconcile_passes.ts";

const verify = (configPath: string) => runVerify(configPath, "mended");
const FIELDS = "sys_id,sys_updated_on,sys_mod_count,short_description,state";

Deno.test("reconcile passes: 0 repairs on unchanged tables; silent updates, a purge, an old-dated insert and a rollback repaired by one pass each (verify 1 before, 0 after)", async () => {
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 120, problem: 30 },
    users: ["admin:pw-Mend-Heron-4"],
  });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("mended.incident", 3);
  await kafka.createTopic("mended.problem", 1);
  await kafka.createTopic("unmended.incident", 1);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "mended",
      config: sourceConnectorConfig(sim.url, "pw-Mend-Heron-4", {
        incident: "mended.incident",
        problem: "mended.problem",
      }, {
        "svc.table.incident.fields": FIELDS,
        "svc.table.problem.fields": FIELDS,
        "svc.source.poll.interval.ms": "500",
        "svc.source.reconcile.interval.seconds": "3600",
        "svc.table.problem.reconcile.interval.seconds": "3",
        "svc.source.reconcile.state.topic": "mended-reconcile-state",
        // The rollback is the reconcile pass's to repair here, not the time-backwards reaction's.
        "svc.source.time.backwards.policy": "warn",
      }),
    }, {
      name: "unmended",
      config: sourceConnectorConfig(sim.url, "pw-Mend-Heron-4", { incident: "unmended.incident" }, {
        "svc.table.incident.fields": FIELDS,
        "svc.source.reconcile.interval.seconds": "0",
      }),
    }],
  });
  const nextPass = (what: string, alias = "incident", ask = true) =>
    passOf(daemon, "mended", alias, what, ask);
  try {
    const table = sim.table("incident");
    await waitFor(
      async () => (await verify(daemon.configPath)).code === 0,
      90_000,
      "the tables verified equal",
    );
    const unchanged = await nextPass("a pass of the unchanged table");
    assertEquals([unchanged.rows_compared, repairCount(unchanged)], [120, 0], JSON.stringify(unchanged));
    for (let i = 0; i < 2; i++) {
      const idle = await nextPass("a timed pass of the unchanged problem table", "problem", false);
      assertEquals([idle.rows_compared, repairCount(idle)], [30, 0], JSON.stringify(idle));
    }
    assertEquals(
      (await daemon.request("POST", "/connectors/unmended/tables/incident/reconcile")).status,
      409,
    );
    assertEquals((await daemon.request("POST", "/connectors/mended/tables/nothere/reconcile")).status, 404);
    assertEquals((await daemon.request("POST", "/connectors/nobody/tables/incident/reconcile")).status, 404);

    const ids = table.sysIds();
    sim.drift.silentUpdate("incident", ids[5], { short_description: "changed by a fix script" });
    sim.drift.silentUpdate("incident", ids[9], { state: "7" });
    sim.drift.purge("incident", ids[20]);
    sim.drift.insertDated("incident", { short_description: "restored from XML" }, "2021-01-01 00:00:00");
    assertEquals((await verify(daemon.configPath)).code, 1);
    const mended = await nextPass("a pass after the drift");
    const after = await verify(daemon.configPath);
    assertEquals(after.code, 0, after.out);
    assertEquals(
      { ...mended.repairs },
      { "silent-update": 2, "rolled-back": 0, missing: 1, deleted: 1 },
      JSON.stringify(mended),
    );

    const snapshot = sim.drift.snapshot("incident");
    table.update(ids[30], { short_description: "changed after the snapshot" });
    table.update(ids[31], { state: "6" });
    table.insert({ short_description: "inserted after the snapshot" });
    await waitFor(async () => (await verify(daemon.configPath)).code === 0, 90_000, "the changes streamed");
    sim.drift.restore(snapshot);
    assertEquals((await verify(daemon.configPath)).code, 1);
    const rolledBack = await nextPass("a pass after the rollback");
    assertEquals((await verify(daemon.configPath)).code, 0);
    assertEquals(
      { ...rolledBack.repairs },
      { "silent-update": 0, "rolled-back": 2, missing: 0, deleted: 1 },
      JSON.stringify(rolledBack),
    );
    assert(/reconcile pass of incident \(alias incident\): \d+ rows compared, [1-9]/.test(daemon.output()));
    const clean = await nextPass("a pass after the repairs");
    assertEquals(repairCount(clean), 0, JSON.stringify(clean));
  } catch (error) {
    const lines = daemon.output().split("\n").filter((l) => /reconcile|state topic|WARN|ERROR/i.test(l));
    console.log(lines.slice(-30).join("\n"));
    throw error;
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
