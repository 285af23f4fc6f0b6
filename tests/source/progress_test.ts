/**
 * Table progress: the tracker's estimate and ETA (explicit clock), the task's reports against the simulator's
 * Aggregate API (backfill with rows_remaining, then streaming; null when the count is refused), and the reporter's
 * one log line per table per minute.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { TableProgress } from "../../src/connect/table_progress.ts";
import { ProgressTracker } from "../../src/source/progress_tracker.ts";
import { ProgressReporter } from "../../src/source/progress_reporter.ts";
import { InstanceTimeSource } from "../../src/source/instance_time.ts";
import { tableSettingsFromProps } from "../../src/source/settings.ts";
import {
  pollUntil,
  pollUntilQuiet,
  propsOf,
  sourceConfig,
  startSim,
  startTask,
  TestContext,
} from "./support.ts";

class ProgressContext extends TestContext {
  readonly reports: TableProgress[][] = [];
  reportProgress(tables: TableProgress[]): void {
    this.reports.push(tables);
  }
  latest(alias: string): TableProgress | undefined {
    return this.reports.at(-1)?.find((t) => t.alias === alias);
  }
}

Deno.test("tracker: remaining is the last count less what was emitted since; ETA from the recent rate", async () => {
  const sim = await startSim({ seed: { incident: 10 } });
  try {
    const settings = tableSettingsFromProps(propsOf(sourceConfig(sim, { inc: "incident" })), "inc");
    let now = 1_000_000;
    const clock = new InstanceTimeSource(() => now);
    clock.observe(new Date(Date.UTC(2026, 0, 1, 0, 10, 0)));
    const tracker = new ProgressTracker(settings, null, clock, () => now);
    assertEquals(tracker.remainingQuery(), "sys_updated_on>=1970-01-01 00:00:00");
    await tracker.recount(() => Promise.resolve(1000));
    tracker.stepped(
      100,
      { timestamp: "2026-01-01 00:00:00", sysId: "a", epochMs: Date.UTC(2026, 0, 1) },
      false,
    );
    now += 10_000;
    tracker.stepped(100, {
      timestamp: "2026-01-01 00:05:00",
      sysId: "b",
      epochMs: Date.UTC(2026, 0, 1, 0, 5),
    }, false);
    const s = tracker.snapshot();
    assertEquals(s.phase, "backfill");
    assertEquals(s.rows_emitted, 200);
    assertEquals(s.rows_remaining, 800);
    assertEquals(s.eta_seconds, 80); // 100 rows per 10 s
    assertEquals(s.lag_seconds, 310); // instance 00:10:00 + 10 s carried forward, cursor 00:05:00
    assertEquals(s.cursor, { timestamp: "2026-01-01 00:05:00", sys_id: "b" });
    assertEquals(
      tracker.remainingQuery(),
      "sys_updated_on>=2026-01-01 00:05:00^sys_updated_on>2026-01-01 00:05:00^ORsys_id>b",
    );
    tracker.failed(new Error("HTTP 403 on incident"));
    tracker.stepped(0, null, true);
    const streaming = tracker.snapshot();
    assertEquals(streaming.phase, "streaming");
    assertEquals(streaming.rows_remaining, null);
    assertEquals(streaming.eta_seconds, null);
    assertEquals(streaming.last_error?.message, "HTTP 403 on incident");
  } finally {
    await sim.stop();
  }
});

Deno.test("task: backfill reports rows_remaining from the Aggregate API, then streaming", async () => {
  const sim = await startSim({ seed: { incident: 1200 }, latencyMs: 30 });
  const context = new ProgressContext();
  const driven = await startTask(
    sourceConfig(sim, { inc: "incident" }, { "svc.source.batch.size": "100" }),
    context,
    { progress: { reportIntervalMs: 20, countIntervalMs: 20 } },
  );
  try {
    const first = context.latest("inc");
    assert(first, "no progress reported at start");
    assertEquals(first.phase, "backfill");
    assertEquals(first.table, "incident");
    await pollUntil(driven, (r) => r.length >= 300);
    const counted = context.reports.flat().find((t) => t.rows_remaining !== null && t.rows_emitted > 0);
    assert(counted, "no report with a count during backfill");
    assertEquals(counted.phase, "backfill");
    // The count is taken after the cursor: emitted and remaining add up to the table.
    assertEquals(counted.rows_emitted + counted.rows_remaining!, 1200);
    assert(
      sim.journal.entries().some((e) => e.path === "/api/now/stats/incident"),
      "the Aggregate API was not asked",
    );
    await pollUntilQuiet(driven);
    await pollUntil(driven, () => context.latest("inc")?.phase === "streaming", 100);
    const done = context.latest("inc")!;
    assertEquals(done.rows_emitted, 1200);
    assertEquals(done.rows_remaining, null);
    assertEquals(context.counter("tablesync_source_backfill", { table: "incident", alias: "inc" }), 0);
  } finally {
    context.abort();
    await driven.task.stop();
    await sim.stop();
  }
});

Deno.test("task: a refused Aggregate API leaves rows_remaining and eta null, asked once", async () => {
  const sim = await startSim({ seed: { incident: 600 } });
  sim.faults.add({ route: "GET /api/now/stats/incident", fault: { kind: "status", status: 403 } });
  const context = new ProgressContext();
  const driven = await startTask(
    sourceConfig(sim, { inc: "incident" }, { "svc.source.batch.size": "50" }),
    context,
  );
  try {
    await pollUntil(driven, (r) => r.length >= 200);
    const s = context.latest("inc")!;
    assertEquals(s.phase, "backfill");
    assertEquals(s.rows_remaining, null);
    assertEquals(s.eta_seconds, null);
    assertEquals(sim.journal.entries().filter((e) => e.path === "/api/now/stats/incident").length, 1);
    assert(context.lines.some((l) => /no backfill estimate for incident: .*HTTP 403/.test(l.msg)));
  } finally {
    context.abort();
    await driven.task.stop();
    await sim.stop();
  }
});

Deno.test("reporter: one progress line per table per minute during backfill, none while streaming", async () => {
  const sim = await startSim({ seed: { incident: 5, problem: 5 } });
  try {
    const props = propsOf(sourceConfig(sim, { inc: "incident", prb: "problem" }));
    const clock = new InstanceTimeSource();
    const inc = new ProgressTracker(tableSettingsFromProps(props, "inc"), null, clock);
    const prb = new ProgressTracker(tableSettingsFromProps(props, "prb"), null, clock);
    prb.stepped(5, null, true);
    const context = new ProgressContext();
    const reporter = new ProgressReporter([inc, prb], context, () => () => Promise.resolve(null), {
      reportIntervalMs: 3_600_000,
    });
    try {
      for (let t = 0; t <= 180_000; t += 2_000) reporter.tick(t);
      const lines = context.lines.filter((l) => l.msg.startsWith("backfill of"));
      assertEquals(lines.map((l) => l.alias), ["inc", "inc", "inc"]);
      assert(lines[0].msg.includes("unknown remaining"), lines[0].msg);
      assertEquals(context.reports.length, 91);
    } finally {
      reporter.stop();
    }
  } finally {
    await sim.stop();
  }
});
