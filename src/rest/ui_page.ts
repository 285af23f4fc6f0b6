/**
 * The status page (`GET /ui`): one self-contained HTML document, no build step, nothing loaded from elsewhere.
 * Its script reads the REST API it is served from (`/connectors?expand=status&expand=info` and
 * `/connectors/<name>/tables`) every two seconds and renders connectors, tasks and the daemon worker running them,
 * and each source table with its phase, a progress bar with ETA, lag and last error.
 *
 * Authentication: the page carries no data, so it is served without a token; every request its script makes
 * sends `Authorization: Bearer <token>` when `rest.auth.token` is set. The token is asked for in the page (or
 * taken once from the address's fragment, `/ui#token=...`, which browsers never send to the server) and kept in
 * the tab's sessionStorage only. Everything shown is inserted as text, never as HTML.
 */

export const UI_STYLE = `
:root { color-scheme: light dark; --ok: #2e7d32; --warn: #b26a00; --bad: #c62828; --muted: #777; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1rem; }
header { display: flex; align-items: baseline; gap: 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 0; display: flex; gap: .6rem; align-items: baseline; }
.muted { color: var(--muted); }
section.connector { border: 1px solid #8884; border-radius: 6px; padding: .8rem 1rem; margin-bottom: 1rem; }
table { border-collapse: collapse; width: 100%; margin-top: .6rem; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #8883; vertical-align: top; }
th { font-weight: 600; font-size: .85rem; }
.state { font-size: .8rem; font-weight: 600; padding: 0 .4rem; border-radius: 3px; color: #fff; background: var(--muted); }
.state.RUNNING { background: var(--ok); }
.state.PAUSED, .state.STOPPED, .state.RESTARTING, .state.UNASSIGNED { background: var(--warn); }
.state.FAILED { background: var(--bad); }
progress { width: 12rem; }
.error { color: var(--bad); white-space: pre-wrap; max-width: 28rem; overflow-wrap: anywhere; }
#problem { color: var(--bad); }
form#login { margin: 1rem 0; }
`;

export const UI_SCRIPT = `
"use strict";
const REFRESH_MS = 2000;
const TOKEN_KEY = "tablesync.rest.token";
const main = document.getElementById("connectors");
const problem = document.getElementById("problem");
const updated = document.getElementById("updated");
const login = document.getElementById("login");

const fragment = new URLSearchParams(location.hash.slice(1)).get("token");
if (fragment) {
  sessionStorage.setItem(TOKEN_KEY, fragment);
  history.replaceState(null, "", location.pathname);
}

class AuthNeeded extends Error {}

async function api(path) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const response = await fetch(path, {
    headers: token ? { authorization: "Bearer " + token } : {},
    cache: "no-store",
  });
  if (response.status === 401) throw new AuthNeeded();
  if (!response.ok) throw new Error(path + ": HTTP " + response.status);
  return response.json();
}

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}

function count(n) {
  return n === null || n === undefined ? "–" : Number(n).toLocaleString("en");
}

function progressBar(t) {
  const bar = el("progress", { class: "table-progress", "data-alias": t.alias, max: 100 });
  if (t.phase === "streaming") bar.value = 100;
  else if (t.rows_remaining !== null && t.rows_remaining !== undefined) {
    const total = t.rows_emitted + t.rows_remaining;
    bar.value = total === 0 ? 100 : Math.floor((1000 * t.rows_emitted) / total) / 10;
  }
  bar.title = bar.hasAttribute("value") ? bar.value + " %" : "counting…";
  return bar;
}

function tasksTable(status) {
  const rows = status.tasks.map((t) =>
    el("tr", { "data-task": t.id },
      el("td", {}, status.name + "-" + t.id),
      el("td", {}, el("span", { class: "state " + t.state }, t.state)),
      el("td", {}, t.worker_id),
      el("td", { class: "error" }, t.trace ? t.trace.split("\\n")[0] : ""))
  );
  return el("table", { class: "tasks" },
    el("thead", {}, el("tr", {}, el("th", {}, "task"), el("th", {}, "state"), el("th", {}, "worker"), el("th", {}, "trace"))),
    el("tbody", {}, ...rows));
}

function tablesTable(tables) {
  const head = ["alias", "table", "task", "phase", "progress", "rows emitted", "remaining", "ETA", "lag", "last error"];
  const rows = tables.map((t) =>
    el("tr", { "data-alias": t.alias },
      el("td", {}, t.alias),
      el("td", {}, t.table),
      el("td", {}, t.task),
      el("td", { class: "phase" }, t.phase),
      el("td", {}, progressBar(t)),
      el("td", { class: "emitted" }, count(t.rows_emitted)),
      el("td", {}, count(t.rows_remaining)),
      el("td", { class: "eta" }, t.phase === "backfill" ? duration(t.eta_seconds_estimate) : "–"),
      el("td", {}, duration(t.lag_seconds)),
      el("td", { class: "error" }, t.last_error ? t.last_error.at + ": " + t.last_error.message : ""))
  );
  return el("table", { class: "tables" },
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows));
}

async function render() {
  const overview = await api("/connectors?expand=status&expand=info");
  const names = Object.keys(overview).sort();
  const sections = [];
  for (const name of names) {
    const { status, info } = overview[name];
    const section = el("section", { class: "connector", "data-connector": name },
      el("h2", {}, name, el("span", { class: "state " + status.connector.state }, status.connector.state),
        el("span", { class: "muted" }, status.type + " · " + (info.config["connector.class"] || ""))));
    if (status.connector.trace) section.append(el("p", { class: "error" }, status.connector.trace.split("\\n")[0]));
    section.append(tasksTable(status));
    if (status.type === "source") {
      const tables = await api("/connectors/" + encodeURIComponent(name) + "/tables");
      section.append(tables.length > 0 ? tablesTable(tables) : el("p", { class: "muted" }, "no table reported yet"));
    }
    sections.push(section);
  }
  main.replaceChildren(...(sections.length > 0 ? sections : [el("p", { class: "muted" }, "no connectors")]));
  updated.textContent = "updated " + new Date().toLocaleTimeString();
}

async function refresh() {
  try {
    await render();
    problem.textContent = "";
    login.hidden = true;
  } catch (e) {
    if (e instanceof AuthNeeded) {
      login.hidden = false;
      problem.textContent = sessionStorage.getItem(TOKEN_KEY) ? "the token was refused" : "";
    } else {
      problem.textContent = "cannot read the REST API: " + e.message;
    }
  }
  setTimeout(refresh, REFRESH_MS);
}

login.addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value);
  document.getElementById("token").value = "";
  render().then(() => { login.hidden = true; problem.textContent = ""; }, () => {});
});

refresh();
`;

export function renderUiPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tablesync</title>
<link rel="icon" href="data:,">
<style>${UI_STYLE}</style>
</head>
<body>
<header><h1>tablesync</h1><span id="updated" class="muted"></span></header>
<p id="problem" role="alert"></p>
<form id="login" hidden>
<label>REST API token (rest.auth.token): <input id="token" type="password" autocomplete="off"></label>
<button type="submit">Show</button>
</form>
<main id="connectors"></main>
<script>${UI_SCRIPT}</script>
</body>
</html>
`;
}
