/** The status page's pieces: the throughput history (rates, resets, the 15-minute ring), formats and escaping. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { HISTORY_WINDOW_MS, ThroughputHistory } from "../../src/rest/ui_history.ts";
import { esc, eta, traceSummary } from "../../src/rest/ui_format.ts";
import { renderContent } from "../../src/rest/ui_html.ts";
import type { UiConnector } from "../../src/rest/ui_model.ts";

Deno.test("rates compare with the latest sample at least 5 s old; a count that went down was reset", () => {
  let count = 0;
  const history = new ThroughputHistory(() => new Map([["t", count]]));
  const t0 = 1_000_000;
  history.sample(t0);
  assertEquals(history.rate("t", 0, t0 + 100), null);
  count = 100;
  history.sample(t0 + 10_000);
  // 2 s after the second sample: compared with the first (12 s ago), not the second (2 s ago).
  assertEquals(history.rate("t", 160, t0 + 12_000), 160 / 12);
  assertEquals(history.rate("t", 160, t0 + 16_000), 60 / 6);
  // The task restarted: its count starts again from 0.
  assertEquals(history.rate("t", 30, t0 + 16_000), 30 / 6);
  assertEquals(history.rate("other", 50, t0 + 16_000), 50 / 6);
  const points = history.series("t", 160, t0 + 16_000);
  assertEquals(points, [{ t: t0 + 10_000, perSecond: 10 }, { t: t0 + 16_000, perSecond: 10 }]);
});

Deno.test("the history keeps 15 minutes of samples", () => {
  const history = new ThroughputHistory(() => new Map([["t", 1]]), 10_000);
  const t0 = 5_000_000;
  for (let i = 0; i <= 200; i++) history.sample(t0 + i * 10_000);
  const now = t0 + 200 * 10_000;
  const points = history.series("t", 1, now + 6_000);
  assert(points.length <= HISTORY_WINDOW_MS / 10_000 + 1, `${points.length} points`);
  assert(points[0].t >= now + 6_000 - HISTORY_WINDOW_MS, "a point older than the window");
});

Deno.test("an ETA reads as an estimate; text is escaped", () => {
  assertEquals(eta(42), "≈ 42 s (estimate)");
  assertEquals(eta(185), "≈ 3 min (estimate)");
  assertEquals(eta(7830), "≈ 2 h 11 min (estimate)");
  assertEquals(eta(null), "–");
  assertEquals(esc(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
});

Deno.test("names, warnings, traces and errors are rendered as text", () => {
  const evil = `<script>alert("x")</script>`;
  const connector: UiConnector = {
    name: evil,
    type: "source",
    connectorClass: evil,
    state: "RUNNING",
    health: "DEGRADED",
    trace: null,
    tasks: [
      {
        id: 0,
        state: "FAILED",
        worker: evil,
        trace: `${evil}\nat somewhere`,
        warnings: [`waiting for topic ${evil}`],
      },
      { id: 1, state: "RUNNING", worker: "w", trace: null, warnings: [] },
    ],
    tables: [{
      alias: evil,
      table: evil,
      task: 0,
      phase: "backfill",
      rowsEmitted: 10,
      rowsRemaining: 30,
      percent: 25,
      etaSeconds: 125,
      lagSeconds: 3,
      lastError: { message: evil, at: evil },
      warning: { message: `went back in time ${evil}`, at: "2026-01-01T00:00:00.000Z" },
      verifiedThrough: "2026-01-01T00:00:00.000Z",
      lastRepairs: 4,
      snapshot: {
        id: "s-1",
        query: "",
        started_at: "2026-01-01T00:00:00.000Z",
        ended_at: "2026-01-01T00:01:00.000Z",
        rows_sent: 1200,
        ranges_done: 1,
        ranges: 4,
        state: "failed",
        reason: `the task stopped ${evil}`,
      },
      perSecond: 2.5,
      points: [{ t: 1000, perSecond: 2 }, { t: 2000, perSecond: 3 }],
    }],
    sinkTasks: [],
    remoteTasks: [],
  };
  const html = renderContent([connector], 2000);
  assert(!html.includes("<script>"), "markup from a name reached the page");
  assertStringIncludes(html, 'data-health="DEGRADED"');
  assertStringIncludes(html, "1 of 2 tasks failed");
  assertStringIncludes(html, '<td class="verified">2026-01-01T00:00:00.000Z (4 repaired)</td>');
  assertStringIncludes(
    html,
    '<td class="snapshot">failed: 1,200 rows, 1/4 ranges (the task stopped &lt;script&gt;',
  );
  // The card's health comes first and the connector's own state after it, named as such.
  const heading = /<h2>.*<\/h2>/s.exec(html)![0].replace(/<[^>]*>/g, " ").replace(/\s+/g, " ");
  assertStringIncludes(heading, "DEGRADED 1 of 2 tasks failed connector RUNNING");
  assertStringIncludes(html, "<li>waiting for topic &lt;script&gt;");
  assertStringIncludes(html, '<td class="eta">≈ 2 min (estimate)</td>');
  assertStringIncludes(html, '<td class="rate num">2.5</td>');
  assertStringIncludes(html, "<polyline");
  assertStringIncludes(
    html,
    '<div class="warning">2026-01-01T00:00:00.000Z: went back in time &lt;script&gt;',
  );
});

Deno.test("a trace shows its message up to the stack: a reason on the next line is kept", () => {
  const invalid = "Connector configuration is invalid:\nsvc.table.x.timestamp.field: Invalid value nope\n" +
    "    at validate (file:///src/config.ts:1:1)\nCaused by: Error: deeper";
  assertEquals(
    traceSummary(invalid),
    "Connector configuration is invalid:\nsvc.table.x.timestamp.field: Invalid value nope",
  );
  assertEquals(traceSummary("Error: boom\n    at f (x.ts:1:1)"), "Error: boom");
  assertEquals(traceSummary("x".repeat(700)).length, 600);
});

Deno.test("a sink row: written, rate, chart with its peak, errors, retried, DLQ, lag, in that order", () => {
  const connector: UiConnector = {
    name: "copy",
    type: "sink",
    connectorClass: "TableSinkConnector",
    state: "RUNNING",
    health: "RUNNING",
    trace: null,
    tasks: [{ id: 0, state: "RUNNING", worker: "w", trace: null, warnings: [] }],
    tables: [],
    sinkTasks: [{
      task: 0,
      written: 12_345,
      errors: 2,
      retried: 1,
      deadLettered: 2,
      lag: 678,
      perSecond: 41.6,
      points: [{ t: 1000, perSecond: 12 }, { t: 2000, perSecond: 41.6 }],
    }],
    remoteTasks: [],
  };
  const html = renderContent([connector], 2000);
  // As a text browser reads it (the chart's <title> is its tooltip).
  const text = html.replace(/<title>[^<]*<\/title>/g, "").replace(/<[^>]*>/g, " ").replace(/\s+/g, " ");
  assertStringIncludes(text, " copy-0 12,345 42 peak 42/s 2 1 2 678 ");
  assertStringIncludes(html, '<td class="errors num bad">2</td>');
});

Deno.test("in a worker group the page says where the tables of tasks running on other workers are", () => {
  const connector: UiConnector = {
    name: "grp",
    type: "source",
    connectorClass: "TableSourceConnector",
    state: "RUNNING",
    health: "RUNNING",
    trace: null,
    tasks: [
      { id: 0, state: "RUNNING", worker: "10.0.0.2:8083", trace: null, warnings: [] },
      { id: 1, state: "RUNNING", worker: "10.0.0.1:8083", trace: null, warnings: [] },
    ],
    tables: [],
    sinkTasks: [],
    remoteTasks: [{ id: 0, worker: "10.0.0.2:8083" }, { id: 1, worker: "10.0.0.1:8083" }],
  };
  const html = renderContent([connector], 2000);
  assertStringIncludes(
    html,
    "The tables of task 0 on 10.0.0.2:8083, task 1 on 10.0.0.1:8083 are on that worker's status page",
  );
  // Not "no table reported yet": the tables exist, on the other workers' pages.
  assert(!html.includes("no table reported yet"), html);
  const alone = renderContent([{ ...connector, remoteTasks: [] }], 2000);
  assertStringIncludes(alone, "no table reported yet");
  assert(!alone.includes("status page"), alone);
});
