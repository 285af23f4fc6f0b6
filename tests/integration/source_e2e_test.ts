/**
 * The source through the real daemon: a backfill of the simulator's incident table reaches its topic, every
 * row once, keyed by sys_id; offsets are readable over REST; after a graceful restart the same offset is read
 * back and only the overlap before it is read again.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

Deno.test("source backfill through the daemon delivers every row once; offsets survive a graceful restart", async () => {
  const password = "pw-E2e-Backfill-31";
  const sim = await startSimulator({ port: 0, seed: { incident: 3000 }, users: [`admin:${password}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("e2e.incident", 4);
  const config = {
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "incidents",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "${env:E2E_PASSWORD}",
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "e2e.incident",
        "svc.source.batch.size": 1000,
        "svc.source.poll.interval.ms": 500,
      },
    }],
  };
  const env = { E2E_PASSWORD: password };
  const daemon = await startDaemonProcess(config, { env });
  let offsets: unknown[];
  try {
    const records = await consumeAll(kafka.bootstrapServers, "e2e.incident", {
      expected: 3000,
      timeoutMs: 60_000,
    });
    const keys = new Set(records.map((r) => r.key));
    assertEquals(records.length, 3000, daemon.output().slice(-3000));
    assertEquals(keys.size, 3000);
    assertEquals([...keys].sort(), sim.table("incident").sysIds().sort());
    const status = await daemon.request("GET", "/connectors/incidents/status");
    assertEquals(status.body.connector.state, "RUNNING");
    assertEquals(status.body.tasks[0].state, "RUNNING");
    offsets = await waitFor(
      async () => {
        const res = await daemon.request("GET", "/connectors/incidents/offsets");
        return res.body.offsets.length > 0 ? res.body.offsets : null;
      },
      20_000,
      "committed offsets",
    );
    assertEquals(offsets.length, 1);
    const config = await daemon.request("GET", "/connectors/incidents/config");
    assertEquals(config.body["svc.auth.password"], "${env:E2E_PASSWORD}");
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    if (code !== 0) await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
    assert(!daemon.output().includes(password), "the password reached the daemon's output");
  }

  // A graceful restart on the same directory: the committed offset is read back, the table resumes from it, and
  // only the overlap before the cursor (2 s by default) is read again, not the backfill.
  const requestsBefore = sim.journal.find({ route: "GET /api/now/table/incident" }).length;
  const again = await startDaemonProcess(config, { env, dir: daemon.dir });
  try {
    const restored = await again.request("GET", "/connectors/incidents/offsets");
    // The graceful stop's final offset may also list the versions sent in the overlap (overlap_sent).
    const cursors = restored.body.offsets.map((
      { partition, offset }: { partition: unknown; offset: Record<string, unknown> },
    ) => ({ partition, offset: { timestamp: offset.timestamp, sys_id: offset.sys_id } }));
    assertEquals(cursors, offsets, "the committed offset survived the restart");
    const cursor = (offsets[0] as { offset: { timestamp: string } }).offset.timestamp;
    await waitFor(
      () =>
        Promise.resolve(
          sim.journal.find({ route: "GET /api/now/table/incident" }).slice(requestsBefore)
            .some((e) =>
              e.params.sysparm_limit === "1000" && e.params.sysparm_query?.includes("sys_updated_on>=")
            ),
        ),
      30_000,
      "a sweep after the restart",
    );
    const resumed = sim.journal.find({ route: "GET /api/now/table/incident" }).slice(requestsBefore)
      .filter((e) => e.params.sysparm_limit === "1000");
    const overlapStart = new Date(Date.parse(cursor.replace(" ", "T") + "Z") - 2000).toISOString().slice(
      0,
      19,
    )
      .replace("T", " ");
    assert(
      resumed.every((e) => e.params.sysparm_query.startsWith(`sys_updated_on>=${overlapStart}`)),
      `a sweep after the restart did not start at the cursor minus the overlap (${overlapStart}): ` +
        resumed.map((e) => e.params.sysparm_query).join("\n"),
    );
    const reRead = sim.table("incident").sysIds().filter((id) =>
      sim.table("incident").get(id)!.sys_updated_on >= overlapStart
    ).length;
    // Read everything there may be (the backfill and at most the re-read overlap): stopping at 3000 records could
    // stop before a partition's last original record, after another partition's re-read ones.
    const records = await consumeAll(kafka.bootstrapServers, "e2e.incident", {
      expected: 3000 + reRead,
      timeoutMs: 10_000,
    });
    assertEquals(
      new Set(records.map((r) =>
        r.key
      )).size,
      3000,
    );
    assert(
      records.length <= 3000 + reRead,
      `${records.length} records after the restart; at most ${reRead} rows lie in the overlap`,
    );
  } finally {
    await again.stop("SIGTERM");
    await sim.stop();
  }
});
