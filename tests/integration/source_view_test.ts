/**
 * A database view through the real daemon: the simulator's `incident_caller` view prefixes every column
 * (`inc_sys_id`, `inc_sys_updated_on`, `inc_sys_mod_count`). Two versions of one row inside one second are two
 * records: the dedup version uses the view's prefixed mod count, which the projection also asks for.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-View-Versions-64";
const SECOND = "2024-05-01 10:00:00";

Deno.test("a view with two versions of a row in one second delivers both versions", async () => {
  const sim = await startSimulator({
    port: 0,
    users: [`admin:${PASSWORD}`],
    clock: { mode: "frozen", at: "2024-05-01 10:00:05" },
  });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("view.incidents", 1);
  const incidents = sim.table("incident");
  const row = incidents.insert({ short_description: "v0", sys_updated_on: SECOND, sys_mod_count: "0" }, {
    suppressAutoSysFields: true,
  });
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "view",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": PASSWORD,
        "svc.tables": "calls",
        "svc.table.calls.name": "incident_caller",
        "svc.table.calls.topic": "view.incidents",
        "svc.table.calls.timestamp.field": "inc_sys_updated_on",
        "svc.table.calls.sys.id.field": "inc_sys_id",
        // A projection without the mod count: the source adds the view's prefixed one.
        "svc.table.calls.fields": "inc_sys_id,inc_sys_updated_on,inc_short_description,usr_user_name",
        "svc.table.calls.start.timestamp": "2024-05-01 00:00:00",
        "svc.source.overlap.seconds": 60,
        "svc.source.poll.interval.ms": 200,
      },
    }],
  });
  try {
    const first = await consumeAll(kafka.bootstrapServers, "view.incidents", {
      expected: 1,
      timeoutMs: 60_000,
    });
    assertEquals(first.length, 1, daemon.output().slice(-2000));
    // A second update inside the same second: same timestamp, next mod count.
    incidents.update(row.sys_id, { short_description: "v1", sys_updated_on: SECOND, sys_mod_count: "1" }, {
      suppressAutoSysFields: true,
    });
    const both = await consumeAll(kafka.bootstrapServers, "view.incidents", {
      expected: 2,
      timeoutMs: 30_000,
    });
    assertEquals(both.length, 2, daemon.output().slice(-2000));
    const values = both.map((r) => JSON.parse(r.value as string));
    assertEquals(values.map((v) => [v.inc_sys_id, v.inc_short_description, v.inc_sys_mod_count]), [
      [row.sys_id, "v0", "0"],
      [row.sys_id, "v1", "1"],
    ]);
    const pages = sim.journal.find({ table: "incident_caller" }).filter((e) => e.params.sysparm_fields);
    assert(pages.some((e) => e.params.sysparm_fields.split(",").includes("inc_sys_mod_count")), "projection");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
