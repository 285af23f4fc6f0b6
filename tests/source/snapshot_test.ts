/**
 * A re-snapshot in the source task, through real HTTP against the simulator, while a live writer changes the table:
 * every row of the table at the snapshot's start arrives once more (once each, with the `tablesync.snapshot`
 * header and no source offset) unless the stream sent a newer version of it first; each key's versions, the
 * snapshot's and the stream's together, arrive in version order (a snapshot page in flight never lands an older
 * version after a newer one); every final version still arrives; the task's other table gets no snapshot record;
 * the snapshot's progress says done with every range read. A second request while one runs is ignored. A
 * snapshot whose pages keep failing ends failed with the reason, and the table streams on.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { SourceRecord } from "../../src/connect/record.ts";
import { HEADER_SNAPSHOT } from "../../src/source/snapshot/table_snapshot.ts";
import { waitFor } from "../support/wait.ts";
import {
  finalVersionsMissing,
  insertRow,
  pollUntil,
  pollUntilQuiet,
  pollWhileWriting,
  sourceConfig,
  startSim,
  startTask,
  stopTask,
  versionsOutOfOrder,
} from "./support.ts";

const snapshotOf = (r: SourceRecord) => r.headers.lastWithName(HEADER_SNAPSHOT)?.value ?? null;

Deno.test("re-snapshot beside a live writer: every row once more, per-key version order, no offsets, other table untouched", async () => {
  const sim = await startSim({ seed: { incident: 2000, problem: 50 }, latencyMs: 15 });
  try {
    const driven = await startTask(sourceConfig(sim, { inc: "incident", prb: "problem" }, {
      // Pages of many slices (whole rows, 500 a page): a snapshot page waits between its slices while the stream,
      // with no safety lag, reads rows changed since; the held page's versions of them are older.
      "svc.source.batch.size": "500",
      "svc.source.backfill.parallelism": "4",
      "svc.source.startup.probe": "false",
      "svc.table.prb.fields": "sys_id,sys_updated_on,sys_mod_count",
    }));
    try {
      await pollUntilQuiet(driven, 5);
      const table = sim.table("incident");
      const atStart = new Map(table.sysIds().map((id) => [id, table.get(id)!.sys_mod_count]));
      const from = driven.records.length;
      driven.task.snapshotNow("inc", { id: "snap-1", query: "" });
      driven.task.snapshotNow("inc", { id: "snap-2", query: "" });
      await pollWhileWriting(sim, driven, {
        table: "incident",
        rowsPerSecond: 400,
        insertRatio: 0.1,
        ms: 3000,
      });

      const since = driven.records.slice(from);
      const snapshot = since.filter((r) => snapshotOf(r) !== null);
      assertEquals(new Set(snapshot.map(snapshotOf)), new Set(["snap-1"]), "the second request was ignored");
      assertEquals(snapshot.filter((r) => r.topic !== "topic.inc"), [], "only the table's topic");
      assertEquals(snapshot.filter((r) => r.sourcePartition !== null || r.sourceOffset !== null), []);
      const keys = snapshot.map((r) => r.key as string);
      assertEquals(new Set(keys).size, keys.length, "each row once");
      // A row left out must be one the writer changed: the stream sent its newer version first.
      const left = [...atStart.keys()].filter((id) => !keys.includes(id));
      assertEquals(
        left.filter((id) => table.get(id)!.sys_mod_count === atStart.get(id)),
        [],
        "rows left out",
      );
      assert(keys.length > atStart.size * 0.8, `${keys.length} of ${atStart.size} rows sent`);
      assertEquals(versionsOutOfOrder(driven.records), [], "each key's versions in order");
      assertEquals(finalVersionsMissing(sim, "incident", driven.records), [], "every final version");

      const progress = driven.task.pollers.find((p) => p.alias === "inc")!.snapshot!.progress()!;
      assertEquals(
        [progress.id, progress.state, progress.ranges_done, progress.ranges, progress.rows_sent],
        ["snap-1", "done", 4, 4, keys.length],
      );
      assertEquals(driven.task.pollers.find((p) => p.alias === "prb")!.snapshot!.progress(), null);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("re-snapshot whose pages keep failing: failed with the reason after 5 tries, the task goes on", async () => {
  const sim = await startSim({ seed: { incident: 30 } });
  try {
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.source.startup.probe": "false",
      "svc.table.inc.fields": "sys_id,sys_updated_on,sys_mod_count,short_description",
    }));
    try {
      await pollUntilQuiet(driven, 5);
      const down = sim.faults.add({
        route: "GET /api/now/table/incident",
        fault: { kind: "maintenance_page", status: 503 },
      });
      const snapshot = driven.task.pollers.find((p) => p.alias === "inc")!.snapshot!;
      driven.task.snapshotNow("inc", { id: "snap-down", query: "" });
      const failed = await waitFor(
        async () => {
          await driven.task.poll();
          const p = snapshot.progress();
          return p?.state === "failed" ? p : null;
        },
        40_000,
        "the snapshot failed",
      );
      assert(/^5 page requests in a row failed, the last: /.test(failed.reason ?? ""), failed.reason ?? "");
      assertEquals([failed.rows_sent, failed.ranges_done], [0, 0]);
      sim.faults.remove(down);
      const row = insertRow(sim, "incident", { short_description: "after the outage" });
      await pollUntil(driven, (records) => records.some((r) => r.key === row));
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("re-snapshot of a table whose rows access control partly hides after the page limit: every readable row once more", async () => {
  const sim = await startSim({ seed: { incident: 1200 } });
  try {
    // In cursor order every fifth row hidden, and a run of 300 (more than two pages) after the first 400.
    const table = sim.table("incident");
    const ordered = table.sysIds().sort((a, b) => {
      const ta = table.get(a)!.sys_updated_on, tb = table.get(b)!.sys_updated_on;
      return ta < tb ? -1 : ta > tb ? 1 : a < b ? -1 : 1;
    });
    const hidden = new Set(ordered.filter((_, i) => i % 5 === 2 || (i >= 400 && i < 700)));
    sim.faults.add({ table: "incident", fault: { kind: "acl_hide", sysIds: [...hidden] } });
    const readable = ordered.filter((id) => !hidden.has(id));
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
      "svc.source.batch.size": "100",
      "svc.source.backfill.parallelism": "2",
      "svc.source.startup.probe": "false",
      "svc.table.inc.fields": "sys_id,sys_updated_on,sys_mod_count,short_description",
    }));
    try {
      await pollUntil(driven, (records) => new Set(records.map((r) => r.key)).size === readable.length);
      const from = driven.records.length;
      driven.task.snapshotNow("inc", { id: "snap-hidden", query: "" });
      const snapshot = driven.task.pollers.find((p) => p.alias === "inc")!.snapshot!;
      await pollUntil(driven, () => snapshot.progress()?.state !== "running", 2000);
      await pollUntilQuiet(driven, 3);
      const keys = driven.records.slice(from).filter((r) => snapshotOf(r) !== null).map((r) =>
        r.key as string
      );
      assertEquals(snapshot.progress()?.state, "done", snapshot.progress()?.reason ?? "");
      assertEquals(keys.sort(), [...readable].sort(), "every readable row once, no hidden one");
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
