/**
 * The status page's content, rendered on the server: one card per connector with its health, its actions, its
 * tasks (state, worker, warnings, trace), and its tables (sources) or its tasks' write counts (sinks). Every
 * string goes through `esc`. The page's script asks for this same fragment to refresh the page in place.
 */
import type { UiConnector, UiSinkTask, UiSourceTable, UiTask } from "./ui_model.ts";
import { count, duration, esc, eta, perSecond, traceSummary } from "./ui_format.ts";
import { rateChart } from "./ui_chart.ts";

export function renderContent(connectors: readonly UiConnector[], now: number): string {
  const cards = connectors.length === 0
    ? `<p class="muted">no connectors</p>`
    : connectors.map((c) => card(c, now)).join("\n");
  return `<p class="muted" id="updated">updated <time datetime="${new Date(now).toISOString()}">${
    esc(new Date(now).toISOString().slice(11, 19))
  } UTC</time></p>\n${cards}`;
}

function card(c: UiConnector, now: number): string {
  const name = esc(c.name);
  const failedTasks = c.tasks.filter((t) => t.state === "FAILED").length;
  const healthNote = failedTasks > 0
    ? ` <span class="badge FAILED">${failedTasks} of ${c.tasks.length} tasks failed</span>`
    : "";
  const state = `<span class="state ${esc(c.state)}">${esc(c.state)}</span>`;
  return `<section class="connector health-${esc(c.health)}" data-connector="${name}" data-health="${
    esc(c.health)
  }">
<h2><span class="name">${name}</span> ${
    c.health !== c.state
      // The health first, the connector's own state after it, named: "RUNNING FAILED" side by side read as a
      // contradiction (the connector runs; its tasks failed).
      ? `<span class="health ${esc(c.health)}">${
        esc(c.health)
      }</span>${healthNote} <span class="muted">connector</span> ${state}`
      : `${state}${healthNote}`
  } <span class="muted">${esc(c.type)} · ${esc(c.connectorClass)}</span></h2>
${actions(c)}
${c.trace ? `<p class="error">${esc(traceSummary(c.trace))}</p>` : ""}
${tasksTable(c)}
${c.type === "source" ? sourceTables(c, now) : ""}${c.type === "sink" ? sinkTable(c, now) : ""}${
    remoteNote(c)
  }
</section>`;
}

/** Buttons for the REST API; they need the page's script (shown only when it runs). */
function actions(c: UiConnector): string {
  const name = esc(c.name);
  const button = (action: string, label: string) =>
    `<button type="button" data-action="${action}" data-connector="${name}">${label}</button>`;
  // Offer what the state allows: Resume for a paused or stopped connector, Pause otherwise.
  const halted = c.state === "PAUSED" || c.state === "STOPPED";
  return `<p class="actions">${halted ? button("resume", "Resume") : button("pause", "Pause")} ${
    button("restart", "Restart with tasks")
  }</p>`;
}

function tasksTable(c: UiConnector): string {
  return table(
    "tasks",
    ["task", "state", "worker", "warnings", "trace"],
    c.tasks.map((t) => taskRow(c.name, t)),
  );
}

function taskRow(connector: string, t: UiTask): string {
  const warnings = t.warnings.map((w) => `<li>${esc(w)}</li>`).join("");
  return `<tr data-task="${t.id}"><td>${wrap(`${connector}-${t.id}`)}</td><td><span class="state ${
    esc(t.state)
  }">${esc(t.state)}</span></td><td class="worker">${esc(t.worker)}</td><td class="warnings">${
    warnings ? `<ul>${warnings}</ul>` : ""
  }</td>` +
    `<td class="error">${t.trace ? esc(traceSummary(t.trace)) : ""}</td></tr>`;
}

/**
 * In a worker group each member reports the tasks it runs; without this note a table of a task running on
 * another member was simply missing from the page.
 */
function remoteNote(c: UiConnector): string {
  if (c.remoteTasks.length === 0) return "";
  const what = c.type === "sink" ? "numbers" : "tables";
  const where = c.remoteTasks.map((t) => `task ${t.id} on ${esc(t.worker)}`).join(", ");
  return `<p class="muted remote-tasks">The ${what} of ${where} are on that worker's status page: each worker ` +
    `shows the tasks it runs.</p>`;
}

function sourceTables(c: UiConnector, now: number): string {
  if (c.tables.length === 0) {
    return c.remoteTasks.length > 0 ? "" : `<p class="muted">no table reported yet</p>`;
  }
  const head: Heading[] = [
    "alias",
    "table",
    "task",
    "phase",
    "progress",
    "rows emitted",
    "rows/s",
    "last 15 min",
    "remaining",
    ["ETA", "an estimate: rows remaining over the smoothed rate of the last half minute or so"],
    [
      "lag",
      "how stale the topic may be: streaming, the time since the last poll that proved the table caught up " +
      "(0 to one poll interval when healthy); backfill, the instance's clock minus the cursor's timestamp",
    ],
    [
      "verified",
      "when the last reconcile pass that found the topic equal to the table began, and its repairs",
    ],
    ["snapshot", "the latest re-snapshot asked for over REST: its state, rows sent and sys id ranges read"],
    "last error",
  ];
  return table("tables", head, c.tables.map((t) => tableRow(c.name, t, now)));
}

function tableRow(connector: string, t: UiSourceTable, now: number): string {
  const alias = esc(t.alias);
  const progress = t.percent === null
    ? `<progress class="table-progress" data-alias="${alias}" max="100" title="counting…"></progress>`
    : `<progress class="table-progress" data-alias="${alias}" max="100" value="${t.percent}" title="${t.percent} %"></progress> <span class="percent">${t.percent} %</span>`;
  return `<tr data-alias="${alias}"><td>${wrap(t.alias)}</td><td>${wrap(t.table)}</td><td>${t.task}</td>` +
    `<td class="phase">${esc(t.phase)}</td><td>${progress}</td><td class="emitted num">${
      count(t.rowsEmitted)
    }</td>` +
    `<td class="rate num">${perSecond(t.perSecond)}</td><td>${
      rateChart(t.points, "rows", now, `${connector}/${t.alias}`)
    }</td>` +
    `<td class="remaining num">${count(t.rowsRemaining)}</td>` +
    `<td class="eta">${t.phase === "backfill" ? esc(eta(t.etaSeconds)) : "–"}</td>` +
    `<td class="lag">${esc(duration(t.lagSeconds))}</td>` +
    `<td class="verified">${t.verifiedThrough === null ? "–" : esc(t.verifiedThrough)}${
      t.lastRepairs ? ` (${t.lastRepairs} repaired)` : ""
    }</td>` +
    `<td class="snapshot">${snapshotCell(t.snapshot)}</td>` +
    `<td class="error">${t.lastError ? `${esc(t.lastError.at)}: ${esc(t.lastError.message)}` : ""}${
      t.warning ? `<div class="warning">${esc(t.warning.at)}: ${esc(t.warning.message)}</div>` : ""
    }</td></tr>`;
}

function snapshotCell(s: UiSourceTable["snapshot"]): string {
  if (s === null) return "–";
  const ranges = s.state === "done" ? "" : `, ${s.ranges_done}/${s.ranges} ranges`;
  return esc(`${s.state}: ${count(s.rows_sent)} rows${ranges}${s.reason ? ` (${s.reason})` : ""}`);
}

function sinkTable(c: UiConnector, now: number): string {
  if (c.sinkTasks.length === 0) {
    return c.remoteTasks.length > 0 ? "" : `<p class="muted">no task reported yet</p>`;
  }
  const head: Heading[] = [
    "task",
    "records written",
    "written/s",
    "last 15 min",
    ["errors", "records that failed at any stage (converter, transform, write), tolerated or not"],
    ["retried", "records whose write failed retriably and that were redelivered"],
    ["DLQ", "records sent to the dead letter queue"],
    ["consumer lag", "records in the task's partitions not yet handed to it"],
  ];
  return table("sink", head, c.sinkTasks.map((t) => sinkRow(c.name, t, now)));
}

function sinkRow(connector: string, t: UiSinkTask, now: number): string {
  return `<tr data-sink-task="${t.task}"><td>${wrap(`${connector}-${t.task}`)}</td><td class="written num">${
    count(t.written)
  }</td>` +
    `<td class="rate num">${perSecond(t.perSecond)}</td><td>${
      rateChart(t.points, "records", now, `${connector}/${t.task}`)
    }</td>` +
    `<td class="errors num${t.errors > 0 ? " bad" : ""}">${count(t.errors)}</td><td class="retried num">${
      count(t.retried)
    }</td>` +
    `<td class="dlq num">${count(t.deadLettered)}</td><td class="lag num">${count(t.lag)}</td></tr>`;
}

/**
 * A name in a table cell: a long one wraps (anywhere, if it must) rather than widen the table past the page; the
 * cell is at least 6rem wide, so a short one (an alias, a table) is not broken when the table is crowded (not in
 * the sink table, whose task names are connector names and whose chart needs the room on a narrow screen).
 */
function wrap(text: string): string {
  return `<span class="wrap">${esc(text)}</span>`;
}

/** A column heading: its text, or its text and what it means (shown on hover). */
type Heading = string | readonly [string, string];

/**
 * A table with a header row; `head` is fixed text, `rows` are rendered rows. It scrolls sideways inside its card
 * when the window is narrower than its columns (a phone), rather than spill out of the card and the page.
 */
function table(className: string, head: readonly Heading[], rows: readonly string[]): string {
  return `<div class="scroll"><table class="${className}"><thead><tr>${
    head.map((h) => typeof h === "string" ? `<th>${h}</th>` : `<th title="${esc(h[1])}">${h[0]}</th>`).join(
      "",
    )
  }</tr></thead>\n` +
    `<tbody>${rows.join("\n")}</tbody></table></div>`;
}
