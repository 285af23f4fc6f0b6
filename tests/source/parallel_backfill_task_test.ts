/**
 * A parallel backfill (`svc.source.backfill.parallelism=4`) through real HTTP against the simulator: with a live
 * writer updating rows during it, every final version arrives and each key's versions arrive in cursor order; the
 * requests in flight never exceed `svc.http.max.concurrent.requests`; the offset during the backfill is the
 * backfill state, and a restart from it resumes without reading finished ranges again; runs of rows hidden by
 * access control longer than a page inside each range are paged past (exactly the readable rows arrive); the
 * per-alias parallelism overrides the connector's.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { SourceRecord } from "../../src/connect/record.ts";
import { backfillFromOffset, inIdRange, splitIdSpace } from "../../src/source/parallel_backfill.ts";
import { sourceSettingsFromProps } from "../../src/source/settings.ts";
import {
  finalVersionsMissing,
  pollUntil,
  pollUntilQuiet,
  pollWhileWriting,
  propsOf,
  sourceConfig,
  startSim,
  startTask,
  stopGracefully,
  stopTask,
  TestContext,
  versionsOutOfOrder,
} from "./support.ts";
import { overlapSentFromOffset } from "../../src/source/overlap_ledger.ts";

const PAGE_QUERIES = (q: string) => q.includes("ORDERBYsys_updated_on");

function config(sim: Parameters<typeof sourceConfig>[0], extra: Record<string, string> = {}) {
  return sourceConfig(sim, { inc: "incident" }, {
    "svc.source.batch.size": "100",
    "svc.source.backfill.parallelism": "4",
    "svc.http.max.concurrent.requests": "3",
    "svc.source.safety.lag.seconds": "1",
    "svc.source.startup.probe": "false",
    "svc.table.inc.fields": "sys_id,sys_updated_on,sys_mod_count",
    ...extra,
  });
}

const valueOf = (r: SourceRecord) => r.value as Record<string, string>;

Deno.test("parallel backfill with a live writer: every final version, per-key order, in-flight within the permits", async () => {
  const sim = await startSim({ seed: { incident: 3000 }, latencyMs: 5 });
  try {
    sim.counters.reset();
    const driven = await startTask(config(sim));
    try {
      await pollWhileWriting(sim, driven, {
        table: "incident",
        rowsPerSecond: 300,
        insertRatio: 0.2,
        ms: 3000,
      });
      assertEquals(finalVersionsMissing(sim, "incident", driven.records), [], "every row's final version");
      assertEquals(versionsOutOfOrder(driven.records), [], "each key's versions in order");

      const pages = sim.journal.find((e) =>
        e.table === "incident" && PAGE_QUERIES(e.params.sysparm_query ?? "")
      );
      const ranged = pages.filter((e) => e.params.sysparm_query.includes("sys_id<="));
      assert(ranged.length >= 30 / 4, `the backfill read in sys id ranges (${ranged.length} ranged pages)`);
      assert(sim.counters.maxInFlight <= 3, `in flight ${sim.counters.maxInFlight} > 3 permits`);
      assert(
        sim.counters.maxInFlight >= 2,
        `ranges were read concurrently (max in flight ${sim.counters.maxInFlight})`,
      );
      const offset = driven.context.offsets.values().next().value!;
      assertEquals(backfillFromOffset(offset), null, "streaming took over: a plain cursor offset");
      assert(typeof offset.timestamp === "string" && typeof offset.sys_id === "string");
    } finally {
      sim.writer.stop();
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("parallel backfill resumed from its offset: finished ranges are not read again, the rest arrives", async () => {
  const sim = await startSim({ seed: { incident: 2000 } });
  try {
    const raw = config(sim, { "svc.source.overlap.seconds": "0" });
    const first = await startTask(raw);
    let offset;
    try {
      await pollUntil(first, (r) => r.length >= 400);
      offset = first.context.offsets.values().next().value!;
    } finally {
      await stopTask(first);
    }
    const state = backfillFromOffset(offset);
    assert(state !== null, `the offset mid-backfill is the backfill state: ${JSON.stringify(offset)}`);
    assertEquals(state.ranges.length, 4);

    // Claim ranges 0 and 2 finished (as a committed offset of a later moment would): the restart must not read them.
    const [key] = first.context.offsets.keys();
    const claimed = { ...offset, "backfill.0.done": true, "backfill.2.done": true };
    const context = new TestContext();
    context.offsets.set(key, claimed);
    sim.journal.clear();
    const second = await startTask(raw, context);
    try {
      await pollUntilQuiet(second, 10);
      const ids = splitIdSpace(4);
      const inRange = (id: string, i: number) => inIdRange(id, ids[i]);
      const pages = sim.journal.find((e) =>
        e.table === "incident" && PAGE_QUERIES(e.params.sysparm_query ?? "")
      );
      for (const e of pages) {
        const q = e.params.sysparm_query;
        assert(
          !q.includes(`sys_id<=${ids[0].atMost}`) || q.includes(`sys_id>${ids[0].atMost}`),
          `range 0 read: ${q}`,
        );
        assert(!q.includes(`sys_id>${ids[2].after}^`), `range 2 read: ${q}`);
      }
      const delivered = new Set([...first.records, ...second.records].map((r) => r.key as string));
      for (const id of sim.table("incident").sysIds()) {
        if (inRange(id, 1) || inRange(id, 3)) {
          assert(delivered.has(id), `row ${id} of an unfinished range missing`);
        }
      }
      const rereadFinished = second.records.filter((r) =>
        inRange(r.key as string, 0) || inRange(r.key as string, 2)
      );
      const handover = second.records.length > 0 ? valueOf(second.records.at(-1)!).sys_updated_on : "";
      for (const r of rereadFinished) {
        // Only the streaming sweep after the handover may meet them, from the handover cursor on (overlap 0).
        assert(valueOf(r).sys_updated_on >= handover, `row ${r.key} of a finished range read again`);
      }
    } finally {
      await stopTask(second);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("parallel backfill stopped gracefully half-way: the next run resumes every range and sends nothing twice", async () => {
  const sim = await startSim({ seed: { incident: 2000 } });
  try {
    // A re-read window wide enough to reach far back into every range.
    const raw = config(sim, { "svc.source.overlap.seconds": "86400" });
    const context = new TestContext();
    const first = await startTask(raw, context);
    try {
      // Acknowledged as the runtime would (what was polled), then stopped: the ranges stand half-way.
      for (const r of await pollUntil(first, (r) => r.length >= 600)) first.task.whenAcknowledged(r)?.();
    } finally {
      await stopGracefully(first);
    }
    const final = context.offsets.values().next().value!;
    assert(backfillFromOffset(final)!.ranges.some((r) => !r.done), "stopped during the backfill");
    assert(overlapSentFromOffset(final).length > 0, "the final offset lists what the ranges sent");
    const second = await startTask(raw, context.renew());
    try {
      await pollUntilQuiet(second, 10);
    } finally {
      await stopTask(second);
    }
    const versions = [...first.records, ...second.records].map((r) => `${r.key}|${valueOf(r).sys_mod_count}`);
    const twice = versions.filter((v, i) => versions.indexOf(v) !== i);
    assertEquals(twice, [], "versions sent twice");
    assertEquals(finalVersionsMissing(sim, "incident", [...first.records, ...second.records]), []);
  } finally {
    await sim.stop();
  }
});

Deno.test("parallel backfill past rows hidden by access control: exactly the readable rows of every range arrive", async () => {
  const sim = await startSim({ seed: { incident: 3000 } });
  try {
    const table = sim.table("incident");
    const ordered = table.sysIds().map((id) => ({ id, ts: table.get(id)!.sys_updated_on }))
      .sort((a, b) => a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.id < b.id ? -1 : 1).map((r) => r.id);
    // Runs of 600 hidden rows at the start, middle and end: about 150 per range each, more than a page of 100,
    // so ranges meet empty pages whose counts exceed the limit and must split their windows.
    const hidden = new Set([...ordered.slice(0, 600), ...ordered.slice(1200, 1800), ...ordered.slice(-600)]);
    sim.faults.add({ table: "incident", fault: { kind: "acl_hide", sysIds: [...hidden] } });
    const driven = await startTask(config(sim));
    try {
      // Ranges splitting their way past hidden runs can go many polls without a record on a loaded machine:
      // wait for the readable rows (up to 400 polls of 100 ms), then for quiet (no hidden row may follow).
      const readable = ordered.filter((id) => !hidden.has(id));
      const keys = () => new Set(driven.records.map((r) => r.key as string));
      await pollUntil(driven, () => keys().size >= readable.length, 600).catch(() => {});
      await pollUntilQuiet(driven, 10);
      const delivered = keys();
      assertEquals(
        [...delivered].sort(),
        [...readable].sort(),
        "every readable row, no hidden one",
      );
      const counted = sim.journal.find((e) =>
        e.table === "incident" && (e.params.sysparm_query ?? "").includes("sys_id<=") &&
        e.params.sysparm_no_count !== "true"
      );
      assert(
        counted.length > 8,
        `ranges asked for counts past hidden runs (${counted.length} counted pages)`,
      );
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("backfill.parallelism: the per-alias value overrides the connector's; default 1", () => {
  const sim = { url: "https://example.service-now.com" } as Parameters<typeof sourceConfig>[0];
  const tables = { a: "incident", b: "problem" };
  const raw = sourceConfig(sim, tables, { "svc.table.b.backfill.parallelism": "6" });
  const settings = sourceSettingsFromProps(propsOf(raw));
  assertEquals(settings.tables.map((t) => t.backfillParallelism), [1, 6]);
  const raised = sourceSettingsFromProps(propsOf({ ...raw, "svc.source.backfill.parallelism": "3" }));
  assertEquals(raised.tables.map((t) => t.backfillParallelism), [3, 6]);
});
