/**
 * Re-snapshots over REST through the real daemon on a real broker, against the simulator. Two streamed tables;
 * `incident` is re-snapshotted (3 sys id ranges, pages of 10) while a row changes: its topic gets every row once
 * more (each record once, with the `tablesync.snapshot` header), the changed row's latest record is its new
 * version, `problem`'s topic gets nothing extra, the table's cursor does not move back, and the progress shows in
 * `GET /tables`. A snapshot narrowed by a query sends exactly the matching rows; one naming a field the table
 * does not have fails with that reason. A second request while one runs is a 409; a bad body 400; an unknown
 * alias or connector 404. A task restart mid-snapshot shows it failed (not resumed), and a stop of the connector
 * ends a running one cleanly.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import type { SnapshotProgress } from "../../src/connect/table_progress.ts";

const FIELDS = "sys_id,sys_updated_on,sys_mod_count,short_description,priority";
const HEADER = "tablesync.snapshot";

Deno.test("re-snapshot over REST: every (matching) row once more beside streaming, other tables untouched, progress, 409/404/400, restart and stop", async () => {
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 60, problem: 20 },
    users: ["admin:pw-Snap-Otter-7"],
  });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("snap.incident", 3);
  await kafka.createTopic("snap.problem", 1);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "snap",
      config: sourceConnectorConfig(sim.url, "pw-Snap-Otter-7", {
        incident: "snap.incident",
        problem: "snap.problem",
      }, {
        "svc.table.incident.fields": FIELDS,
        "svc.table.problem.fields": FIELDS,
        "svc.source.poll.interval.ms": "500",
        "svc.source.batch.size": "10",
        "svc.source.backfill.parallelism": "3",
      }),
    }],
  });
  const tables = async () =>
    (await daemon.request("GET", "/connectors/snap/tables")).body as {
      alias: string;
      phase: string;
      cursor: { timestamp: string; sys_id: string } | null;
      snapshot?: SnapshotProgress;
    }[];
  const incident = async () => (await tables()).find((t) => t.alias === "incident");
  const ask = (body?: unknown, alias = "incident", connector = "snap") =>
    daemon.request("POST", `/connectors/${connector}/tables/${alias}/snapshot`, body);
  /** The snapshot `id` once ended. */
  const ended = (id: string) =>
    waitFor(
      async () => {
        const s = (await incident())?.snapshot;
        return s?.id === id && s.state !== "running" ? s : null;
      },
      90_000,
      `snapshot ${id} ended`,
    );
  const topic = (name: string) => readTopicWithKcat(kafka.bootstrapServers, name);
  const table = sim.table("incident");
  const ids = table.sysIds();
  try {
    await waitFor(
      async () =>
        (await topic("snap.incident")).length === 60 && (await topic("snap.problem")).length === 20 &&
        (await tables()).every((t) => t.phase === "streaming"),
      90_000,
      "both tables streamed",
    );

    assertEquals((await ask(undefined, "nothere")).status, 404);
    assertEquals((await ask(undefined, "incident", "nobody")).status, 404);
    for (
      const bad of [{ query: 5 }, { query: "priority=1^NQpriority=2" }, { query: "priority=1^ORDERBYsys_id" }]
    ) {
      const { status, body } = await ask(bad);
      assertEquals(status, 400, JSON.stringify(body));
    }
    assertEquals((await ask({ query: "priority=1", fields: "x" })).status, 400);
    assertEquals((await ask([1])).status, 400);

    // The whole table, while a row changes.
    const cursorBefore = (await incident())!.cursor!;
    const first = await ask();
    assertEquals(first.status, 202, JSON.stringify(first.body));
    const id = first.body.snapshot as string;
    table.update(ids[3], { short_description: "changed during the snapshot" });
    const second = await ask();
    assertEquals(second.status, 409, JSON.stringify(second.body));
    const whole = await ended(id);
    assertEquals([whole.state, whole.ranges_done, whole.ranges, whole.query], ["done", 3, 3, ""]);
    const records = await waitFor(
      async () => {
        const all = await topic("snap.incident");
        const mine = all.filter((r) => r.headers[HEADER] === id);
        return mine.length === whole.rows_sent ? all : null;
      },
      60_000,
      "the snapshot's records in the topic",
    );
    const sent = records.filter((r) => r.headers[HEADER] === id).map((r) => r.key!);
    assertEquals(new Set(sent).size, sent.length, "each row once");
    // The changed row may have been left to the stream (it sent a newer version first): every other row is there.
    assertEquals(
      ids.filter((k) => !sent.includes(k) && k !== ids[3]),
      [],
      `rows the snapshot missed (sent ${sent.length})`,
    );
    await waitFor(
      async () => {
        const versions = (await topic("snap.incident")).filter((r) => r.key === ids[3]);
        return versions.at(-1)?.value?.includes("changed during the snapshot") ?? false;
      },
      60_000,
      "the change streamed, and last",
    );
    assertEquals((await topic("snap.problem")).length, 20, "the other table's topic got nothing extra");
    const cursorAfter = (await incident())!.cursor!;
    assert(
      [cursorAfter.timestamp, cursorAfter.sys_id].join() >=
        [cursorBefore.timestamp, cursorBefore.sys_id].join(),
      `cursor moved back: ${JSON.stringify({ cursorBefore, cursorAfter })}`,
    );

    // Narrowed by a query.
    const matching = ids.filter((k) => table.get(k)!.priority === "1");
    assert(matching.length > 0 && matching.length < 60, `priority 1 rows: ${matching.length}`);
    const narrowed = await ask({ query: "priority=1" });
    assertEquals(narrowed.status, 202, JSON.stringify(narrowed.body));
    const narrow = await ended(narrowed.body.snapshot);
    assertEquals([narrow.state, narrow.rows_sent, narrow.query], ["done", matching.length, "priority=1"]);
    const narrowKeys = await waitFor(
      async () => {
        const mine = (await topic("snap.incident")).filter((r) => r.headers[HEADER] === narrow.id);
        return mine.length === matching.length ? mine.map((r) => r.key!) : null;
      },
      60_000,
      "the narrowed snapshot's records",
    );
    assertEquals(narrowKeys.sort(), [...matching].sort());

    const unknown = await ask({ query: "no_such_field=1" });
    assertEquals(unknown.status, 202);
    const refused = await ended(unknown.body.snapshot);
    assertEquals(refused.state, "failed");
    assert(refused.reason?.includes("no_such_field"), refused.reason ?? "");

    // A task restart mid-snapshot: reported failed, not resumed.
    const slow = sim.faults.add({
      route: "GET /api/now/table/incident",
      fault: { kind: "latency", ms: 1500 },
    });
    const lost = await ask();
    assertEquals(lost.status, 202);
    await waitFor(
      async () => (await incident())?.snapshot?.ranges === 3,
      30_000,
      "the task reported the snapshot",
    );
    assertEquals((await daemon.request("POST", "/connectors/snap/tasks/0/restart")).status, 204);
    const afterRestart = await ended(lost.body.snapshot);
    assertEquals(afterRestart.state, "failed");
    assert(/restarted/.test(afterRestart.reason ?? ""), afterRestart.reason ?? "");

    // A stop of the connector ends a running snapshot cleanly.
    const stopped = await waitFor(
      async () => {
        const r = await ask();
        return r.status === 202 ? r.body.snapshot as string : null;
      },
      60_000,
      "a snapshot after the restart",
    );
    await waitFor(async () => (await incident())?.snapshot?.ranges === 3, 30_000, "the snapshot reported");
    assertEquals((await daemon.request("PUT", "/connectors/snap/stop")).status, 204);
    await waitFor(
      () => daemon.output().includes(`re-snapshot ${stopped} of incident (alias incident) failed`),
      30_000,
      "the stopped snapshot's line",
    );
    sim.faults.remove(slow);
    assert(daemon.output().includes("the task stopped"));
  } catch (error) {
    const lines = daemon.output().split("\n").filter((l) => /snapshot|WARN|ERROR/i.test(l));
    console.log(lines.slice(-30).join("\n"));
    throw error;
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
