/**
 * Background reconcile passes through the real daemon on a real broker: a streamed table's pass finds it equal
 * (0 repairs); after drift the cursor cannot see (two silent updates, a purge without audit, an insert with an
 * old timestamp) `tablesync verify` exits 1, and after the next pass (repairs by kind as expected) it exits 0;
 * likewise after a rollback (a restore of an earlier snapshot: rows back at older versions, a row inserted since
 * gone). Passes run every 4 s here so that the phases follow each other quickly.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function verify(configPath: string): Promise<{ code: number; out: string }> {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "verify", "--config", configPath, "--connector", "mended"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, out: new TextDecoder().decode(stdout) };
}

interface LastPass {
  ended_at: string;
  rows_compared: number;
  repairs: Record<string, number>;
}

Deno.test("reconcile passes: 0 repairs on an unchanged table; silent updates, a purge, an old-dated insert and a rollback repaired by one pass each (verify 1 before, 0 after)", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 120 }, users: ["admin:pw-Mend-Heron-4"] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("mended.incident", 3);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "mended",
      config: sourceConnectorConfig(sim.url, "pw-Mend-Heron-4", { incident: "mended.incident" }, {
        "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,short_description,state",
        "svc.source.poll.interval.ms": "500",
        "svc.source.reconcile.interval.seconds": "4",
        "svc.source.reconcile.state.topic": "mended-reconcile-state",
        // The rollback is the reconcile pass's to repair here, not the time-backwards reaction's.
        "svc.source.time.backwards.policy": "warn",
      }),
    }],
  });
  const lastPass = async (): Promise<LastPass | null> => {
    const { body } = await daemon.request("GET", "/connectors/mended/tables");
    return body?.tables?.[0]?.reconcile?.last_pass ?? body?.[0]?.reconcile?.last_pass ?? null;
  };
  /** The first pass that ends after now. */
  const nextPass = async (what: string): Promise<LastPass> => {
    const before = (await lastPass())?.ended_at ?? "";
    return await waitFor(
      async () => {
        const last = await lastPass();
        return last !== null && last.ended_at > before ? last : null;
      },
      90_000,
      what,
    );
  };
  const repaired = (p: LastPass) => Object.values(p.repairs).reduce((a, b) => a + b, 0);
  try {
    const table = sim.table("incident");
    await waitFor(
      async () => (await verify(daemon.configPath)).code === 0,
      90_000,
      "the table verified equal",
    );
    const unchanged = await nextPass("a pass of the unchanged table");
    assertEquals(unchanged.rows_compared, 120);
    assertEquals(repaired(unchanged), 0, JSON.stringify(unchanged));

    const ids = table.sysIds();
    sim.drift.silentUpdate("incident", ids[5], { short_description: "changed by a fix script" });
    sim.drift.silentUpdate("incident", ids[9], { state: "7" });
    sim.drift.purge("incident", ids[20]);
    sim.drift.insertDated("incident", { short_description: "restored from XML" }, "2021-01-01 00:00:00");
    assertEquals((await verify(daemon.configPath)).code, 1);
    // A pass may have begun before the drift: the one after it repairs.
    let mended = await nextPass("a pass after the drift");
    if (repaired(mended) < 4) mended = await nextPass("a second pass after the drift");
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
    await waitFor(async () => (await verify(daemon.configPath)).code === 0, 90_000, "the rollback repaired");
    assert(/reconcile pass of incident \(alias incident\): \d+ rows compared, [1-9]/.test(daemon.output()));
    // The pass that repaired may end after verify saw the topic equal: the one after it finds nothing.
    let clean = await nextPass("a pass after the repairs");
    if (repaired(clean) > 0) clean = await nextPass("the next pass after the repairs");
    assertEquals(repaired(clean), 0, JSON.stringify(clean));
  } catch (error) {
    const lines = daemon.output().split("\n").filter((l) => /reconcile|state topic|WARN|ERROR/i.test(l));
    console.log(lines.slice(-30).join("\n"));
    throw error;
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
