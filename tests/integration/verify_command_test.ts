/**
 * `tablesync verify` through the real daemon on a real broker: a table streamed to its topic verifies equal (exit
 * 0); after drift the cursor cannot see (the simulator's silent updates, a purge without audit, an insert with an
 * old timestamp) it names each difference, missing, stale and extra, and exits 1.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { runVerify } from "../support/verify_command.ts";

async function verify(configPath: string): Promise<{ code: number; out: string }> {
  const { code, out, err } = await runVerify(configPath, "checked");
  assertEquals(err.match(/^error: .*/m)?.[0] ?? null, null);
  return { code, out };
}

Deno.test("tablesync verify: equal after streaming (exit 0); silent updates, a purge and an old-dated insert named (exit 1)", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 120 }, users: ["admin:pw-Verify-Owl-2"] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("checked.incident", 3);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "checked",
      config: sourceConnectorConfig(sim.url, "pw-Verify-Owl-2", { incident: "checked.incident" }, {
        "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,short_description,state",
        "svc.source.poll.interval.ms": "500",
      }),
    }],
  });
  try {
    const table = sim.table("incident");
    await waitFor(
      async () => (await verify(daemon.configPath)).code === 0,
      90_000,
      "the table verified equal",
    );
    const equal = await verify(daemon.configPath);
    assert(
      /instance 120 rows, topic 120 rows; missing 0, stale 0, extra 0: equal/.test(equal.out),
      equal.out,
    );

    const ids = table.sysIds();
    sim.drift.silentUpdate("incident", ids[5], { short_description: "changed by a fix script" });
    sim.drift.silentUpdate("incident", ids[9], { state: "7" });
    sim.drift.purge("incident", ids[20]);
    const restored =
      sim.drift.insertDated("incident", { short_description: "restored from XML" }, "2021-01-01 00:00:00")
        .sys_id;
    // A few polls: the daemon sees none of it.
    await new Promise((r) => setTimeout(r, 2000));
    const drifted = await verify(daemon.configPath);
    assertEquals(drifted.code, 1, drifted.out);
    assert(/instance 120 rows, topic 120 rows; missing 1, stale 2, extra 1/.test(drifted.out), drifted.out);
    const listed = (kind: string) =>
      drifted.out.match(new RegExp(`^  ${kind}: (.*)$`, "m"))?.[1].split(" ").sort();
    assertEquals(listed("missing"), [restored]);
    assertEquals(listed("stale"), [ids[5], ids[9]].sort());
    assertEquals(listed("extra"), [ids[20]]);
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
