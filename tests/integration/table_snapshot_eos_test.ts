/**
 * A re-snapshot of an exactly-once source connector (exactly.once.source.support=enabled, the worker's offsets
 * topic): its records, which carry no source offset, go out in the task's transactions like every other record,
 * so a read_committed consumer sees every row once more, each once; the stream goes on committing its offsets
 * (a row changed after the snapshot reaches the topic too).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { exactlyOnceWorker } from "../support/exactly_once_worker.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import type { TableProgress } from "../../src/connect/table_progress.ts";

const PASSWORD = "pw-Snap-Eos-3";

Deno.test("re-snapshot under exactly-once: every row once more in committed transactions, streaming goes on", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 200 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("snap-eos.incident");
  await kafka.createTopic(topic, 3);
  const daemon = await startDaemonProcess({
    worker: exactlyOnceWorker(kafka.bootstrapServers, uniqueName("snap-eos.offsets")),
    connectors: [{
      // Its task's transactional id (tablesync-eos-snap-0) is this test's alone on the shared broker.
      name: "eos-snap",
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
        "exactly.once.support": "required",
        "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,short_description",
        "svc.source.batch.size": 50,
        "svc.source.backfill.parallelism": 2,
        "svc.source.poll.interval.ms": 300,
      }),
    }],
  });
  const committed = () => readTopicWithKcat(kafka.bootstrapServers, topic, { readCommitted: true });
  const table = sim.table("incident");
  try {
    await waitFor(async () => (await committed()).length === 200, 90_000, "the table streamed");
    const asked = await daemon.request("POST", "/connectors/eos-snap/tables/incident/snapshot");
    assertEquals(asked.status, 202, JSON.stringify(asked.body));
    const id = asked.body.snapshot as string;
    const done = await waitFor(
      async () => {
        const tables = (await daemon.request("GET", "/connectors/eos-snap/tables")).body as TableProgress[];
        const s = tables[0]?.snapshot;
        return s?.id === id && s.state !== "running" ? s : null;
      },
      90_000,
      "the snapshot ended",
    );
    assertEquals([done.state, done.rows_sent], ["done", 200], JSON.stringify(done));
    const changed = table.sysIds()[7];
    table.update(changed, { short_description: "changed after the snapshot" });
    const records = await waitFor(
      async () => {
        const all = await committed();
        const last = all.filter((r) => r.key === changed).at(-1);
        return last?.value?.includes("changed after the snapshot") ? all : null;
      },
      60_000,
      "the snapshot and the change committed",
    );
    const sent = records.filter((r) => r.headers["tablesync.snapshot"] === id).map((r) => r.key!);
    assertEquals(sent.length, 200);
    assertEquals(new Set(sent), new Set(table.sysIds()), "every row once");
    assert(!daemon.output().includes('"level":"error"'), "no error logged");
  } catch (error) {
    console.log(
      daemon.output().split("\n").filter((l) => /snapshot|warn|error/i.test(l)).slice(-20).join("\n"),
    );
    throw error;
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
