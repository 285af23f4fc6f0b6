/**
 * Reconcile passes and `tablesync verify` on a table whose rows access control partly hides from the integration
 * user, applied as the instance applies it: after the page limit, so pages come back short while rows follow,
 * and counted in `X-Total-Count`. Every seventh row in sys id order is hidden, and a run of 250 rows (more than
 * two pages of 100). The stream sends the readable rows; `tablesync verify` then finds the topic equal to the
 * table (a short page does not end its read), a pass repairs nothing (a short page does not end its window, whose
 * entries after it would otherwise be taken for deleted rows and tombstoned), and after a silent update behind
 * the hidden run a pass repairs exactly that row.
 */
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { runVerify } from "../support/verify_command.ts";
import { nextPass, repairCount } from "../support/reconcile_passes.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Hidden-Mend-2";
const ROWS = 900;

Deno.test("rows hidden after the page limit: verify reads past short pages, a pass neither stops early nor tombstones readable rows", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: ROWS }, users: [`admin:${PASSWORD}`] });
  const ids = sim.table("incident").sysIds().sort();
  const hidden = new Set(ids.filter((_, i) => i % 7 === 3 || (i >= 300 && i < 550)));
  sim.faults.add({ table: "incident", fault: { kind: "acl_hide", sysIds: [...hidden] } });
  const readable = ids.filter((id) => !hidden.has(id));
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("hidden-mend.incident");
  await kafka.createTopic(topic, 3);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "hidden",
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
        "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,short_description,state",
        "svc.source.batch.size": 100,
        "svc.source.poll.interval.ms": 500,
        "svc.source.reconcile.interval.seconds": 3600,
        "svc.source.reconcile.state.topic": uniqueName("hidden-mend-state"),
      }),
    }],
  });
  const pass = (what: string) => nextPass(daemon, "hidden", "incident", what);
  try {
    await waitFor(
      async () =>
        new Set((await readTopicWithKcat(kafka.bootstrapServers, topic)).map((r) => r.key)).size ===
          readable.length,
      90_000,
      "the readable rows streamed",
    );
    const equal = await runVerify(daemon.configPath, "hidden");
    assertEquals(equal.code, 0, equal.out + equal.err);
    assertEquals(
      equal.out.split("\n")[0].replace(/^.*: instance/, "instance"),
      `instance ${readable.length} rows, topic ${readable.length} rows; missing 0, stale 0, extra 0: equal`,
    );

    const first = await pass("the first pass (seeds the state)");
    assertEquals(first.rows_compared, readable.length, JSON.stringify(first));
    assertEquals(repairCount(first), 0, JSON.stringify(first));

    // A row behind the hidden run, changed without moving sys_updated_on.
    sim.drift.silentUpdate("incident", readable.at(-20)!, { short_description: "changed by a fix script" });
    assertEquals((await runVerify(daemon.configPath, "hidden")).code, 1);
    const mended = await pass("a pass after a silent update");
    assertEquals(
      { ...mended.repairs },
      { "silent-update": 1, "rolled-back": 0, missing: 0, deleted: 0 },
      JSON.stringify(mended),
    );
    assertEquals((await runVerify(daemon.configPath, "hidden")).code, 0);
  } catch (error) {
    console.log(
      daemon.output().split("\n").filter((l) => /reconcile|WARN|ERROR/i.test(l)).slice(-20).join("\n"),
    );
    throw error;
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
