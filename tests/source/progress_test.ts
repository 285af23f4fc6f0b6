/**
 * Table progress: the tracker's estimate and ETA (explicit clock), the task's reports against the simulator's
 * Aggregate API (backfill with rows_remaining, then streaming; null when the count is refused), and the reporter's
 * one log line per table per minute.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ProgressTracker } from "../../src/source/progress_tracker.ts";
import { ProgressReporter } from "../../src/source/progress_reporter.ts";
import { InstanceTimeSource } from "../../src/source/instance_time.ts";
import { tableSettingsFromProps } from "../../src/source/settings.ts";
import {
  pollUntil,
  pollUntilQuiet,
  ProgressContext,
  propsOf,
  sourceConfig,
  startSim,
  startTask,
} from "./support.ts";

const C = (timestamp: string, sysId: string) => ({ timestamp, sysId, epochMs: Date.parse(timestamp + "Z") });

/** A tracker on an explicit local clock, the instance at 2026-01-01 00:10:00 when it starts. */
async function trackerScene() {
  const sim = await startSim({ seed: { incident: 10 } });
  const settings = tableSettingsFromProps(propsOf(sourceConfig(sim, { inc: "incident" })), "inc");
  await sim.stop();
  const clock = { now: 1_000_000 };
  const instance = new InstanceTimeSource(() => clock.now);
  instance.observe(new Date(Date.UTC(2026, 0, 1, 0, 10, 0)));
  const tracker = new ProgressTracker(settings, null, instance, () => clock.now, 1);
  return { clock, tracker, settings };
}

Deno.test("tracker: remaining is the last count less what was emitted since; ETA from the smoothed rate", async () => {
  const { clock, tracker } = await trackerScene();
  assertEquals(tracker.remainingQuery(), "sys_updated_on>=1970-01-01 00:00:00");
  await tracker.recount(() => Promise.resolve(1000));
  tracker.stepped(100, C("2026-01-01 00:00:00", "a"), false);
  clock.now += 5_000;
  tracker.stepped(50, C("2026-01-01 00:02:00", "b"), false);
  assertEquals(tracker.snapshot().eta_seconds_estimate, null, "not before 10 s of progress");
  clock.now += 5_000;
  tracker.stepped(50, C("2026-01-01 00:05:00", "b"), false);
  const s = tracker.snapshot();
  assertEquals(s.phase, "backfill");
  assertEquals(s.rows_emitted, 200);
  assertEquals(s.rows_remaining, 800);
  assertEquals(s.eta_seconds_estimate, 80); // 100 rows per 10 s after the first page
  assertEquals(s.lag_seconds, 310, "backfill: instance 00:10:00 + 10 s carried forward, cursor 00:05:00");
  assertEquals(s.cursor, { timestamp: "2026-01-01 00:05:00", sys_id: "b" });
  assertEquals(
    tracker.remainingQuery(),
    "sys_updated_on>=2026-01-01 00:05:00^sys_updated_on>2026-01-01 00:05:00^ORsys_id>b",
  );
  tracker.failed(new Error("HTTP 403 on incident"));
  tracker.stepped(0, null, true, clock.now);
  const streaming = tracker.snapshot();
  assertEquals(streaming.phase, "streaming");
  assertEquals(streaming.rows_remaining, null);
  assertEquals(streaming.eta_seconds_estimate, null);
  assertEquals(streaming.last_error?.message, "HTTP 403 on incident");
});

Deno.test("tracker: a first burst gives no ETA (not 1 s for 16,210 rows); a stall lengthens it", async () => {
  const { clock, tracker } = await trackerScene();
  await tracker.recount(() => Promise.resolve(21_210));
  // The first page is queued at once, the second 10 ms later: a rate of 500,000 rows/s if taken at its word.
  tracker.stepped(5000, C("2026-01-01 00:00:00", "a"), false);
  clock.now += 10;
  tracker.stepped(5000, C("2026-01-01 00:00:01", "b"), false);
  assertEquals(tracker.snapshot().rows_remaining, 11_210);
  assertEquals(tracker.snapshot().eta_seconds_estimate, null);
  for (let i = 0; i < 6; i++) {
    clock.now += 2_000;
    tracker.stepped(200, C("2026-01-01 00:00:02", "c"), false);
  }
  const first = tracker.snapshot().eta_seconds_estimate!;
  assert(first >= 10, `the first ETA for 6,010 rows at 100 rows/s is ${first} s`);
  for (let i = 0; i < 30; i++) {
    clock.now += 2_000;
    tracker.stepped(200, C("2026-01-01 00:00:03", "d"), false);
  }
  // 4,010 rows left at 100 rows/s: 40 s; the burst has faded from the smoothed rate.
  const settled = tracker.snapshot().eta_seconds_estimate!;
  assert(settled > 28 && settled < 52, `ETA ${settled} s`);
  clock.now += 60_000;
  assert(
    tracker.snapshot().eta_seconds_estimate! > 2 * settled,
    "a minute without progress slows the rate down",
  );
});

Deno.test("tracker: rows remaining count readable rows (the share the pages showed)", async () => {
  const { tracker } = await trackerScene();
  await tracker.recount(() => Promise.resolve(29_103));
  assertEquals(tracker.snapshot().rows_remaining, 29_103, "no page yet: every counted row");
  tracker.scanned(500, 0);
  assertEquals(tracker.snapshot().rows_remaining, null, "only hidden rows so far: unknown, not 0");
  tracker.scanned(1500, 1240);
  assertEquals(tracker.readableShare(), 0.62);
  assertEquals(tracker.snapshot().rows_remaining, Math.round(29_103 * 0.62));
  tracker.stepped(1240, C("2026-01-01 00:00:00", "a"), false);
  assertEquals(tracker.snapshot().rows_remaining, Math.round(29_103 * 0.62) - 1240);
});

Deno.test("tracker: expected staleness follows the interval the poll scheduler gives the table", async () => {
  const { tracker, settings } = await trackerScene();
  assertEquals(tracker.snapshot().expected_staleness_seconds, Math.ceil(settings.pollIntervalMs / 1000) + 1);
  tracker.scheduled(90_500);
  assertEquals(tracker.snapshot().expected_staleness_seconds, 91 + 1);
  tracker.scheduled(settings.pollIntervalMs);
  assertEquals(tracker.snapshot().expected_staleness_seconds, Math.ceil(settings.pollIntervalMs / 1000) + 1);
});

Deno.test("tracker: streaming lag is the time since the last sweep that proved the table caught up", async () => {
  const { clock, tracker, settings } = await trackerScene();
  // A table of old rows: the cursor is months behind the instance clock.
  tracker.stepped(3, C("2025-06-01 00:00:00", "a"), true, clock.now);
  assertEquals(tracker.snapshot().lag_seconds, 0);
  assertEquals(tracker.snapshot().expected_staleness_seconds, Math.ceil(settings.pollIntervalMs / 1000) + 1);
  for (let poll = 0; poll < 5; poll++) {
    clock.now += 3_000;
    tracker.stepped(0, C("2025-06-01 00:00:00", "a"), true, clock.now - 200);
    assertEquals(tracker.snapshot().lag_seconds, 0, "idle polls keep it at zero");
  }
  clock.now += 4_000;
  tracker.stepped(0, C("2025-06-01 00:00:00", "a"), false);
  assertEquals(tracker.snapshot().lag_seconds, 4, "a sweep still running: since the last proof");
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
    assertEquals(s.eta_seconds_estimate, null);
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
