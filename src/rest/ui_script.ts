/**
 * The status page's script: it refreshes the server-rendered content in place every two seconds (asking for
 * the same HTML fragment, `GET /ui/content`), and runs the pause / resume / restart buttons through the REST
 * API. Without it the page still shows everything and reloads itself (see ui_page.ts).
 *
 * Authentication: every request sends `Authorization: Bearer <token>` when the page has one. The token is asked
 * for in the page (or taken once from the address's fragment, `/ui#token=...`, which browsers never send to
 * the server) and kept in the tab's sessionStorage only.
 */
export const UI_SCRIPT = `
"use strict";
const REFRESH_MS = 2000;
const TOKEN_KEY = "tablesync.rest.token";
const REFUSED = "the REST API refused the token (HTTP 401): enter the worker's rest.auth.token";
const content = document.getElementById("content");
const problem = document.getElementById("problem");
const notice = document.getElementById("notice");
const login = document.getElementById("login");
document.documentElement.classList.add("js");

const fragment = new URLSearchParams(location.hash.slice(1)).get("token");
if (fragment) {
  sessionStorage.setItem(TOKEN_KEY, fragment);
  history.replaceState(null, "", location.pathname);
}

class AuthNeeded extends Error {}
/** 503: the worker is still starting (waiting for Kafka); the page says so in place of the content. */
class Unavailable extends Error {}

async function call(method, path) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const response = await fetch(path, {
    method,
    headers: token ? { authorization: "Bearer " + token } : {},
    cache: "no-store",
  });
  if (response.status === 401) throw new AuthNeeded();
  const text = await response.text();
  if (!response.ok) {
    let message = "HTTP " + response.status;
    try { message = JSON.parse(text).message || message; } catch {}
    if (response.status === 503 && method === "GET") throw new Unavailable(message);
    throw new Error(method + " " + path + ": " + message);
  }
  return text;
}

async function render() {
  content.innerHTML = await call("GET", "/ui/content");
}

let timer = null;
async function refresh() {
  clearTimeout(timer);
  try {
    await render();
    problem.textContent = "";
    login.hidden = true;
  } catch (e) {
    if (e instanceof AuthNeeded) {
      login.hidden = false;
      problem.textContent = sessionStorage.getItem(TOKEN_KEY) ? REFUSED : "";
    } else if (e instanceof Unavailable) {
      problem.textContent = "";
      const note = document.createElement("p");
      note.className = "muted";
      note.textContent = e.message;
      content.replaceChildren(note);
    } else {
      problem.textContent = "cannot read the REST API: " + e.message;
    }
  }
  timer = setTimeout(refresh, REFRESH_MS);
}

const ACTIONS = {
  pause: (name) => ["PUT", "/connectors/" + encodeURIComponent(name) + "/pause"],
  resume: (name) => ["PUT", "/connectors/" + encodeURIComponent(name) + "/resume"],
  restart: (name) => ["POST", "/connectors/" + encodeURIComponent(name) + "/restart?includeTasks=true"],
};

content.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button || !ACTIONS[button.dataset.action]) return;
  const name = button.dataset.connector;
  const [method, path] = ACTIONS[button.dataset.action](name);
  button.disabled = true;
  try {
    await call(method, path);
    notice.textContent = button.dataset.action + " " + name + ": accepted";
    problem.textContent = "";
  } catch (e) {
    if (e instanceof AuthNeeded) login.hidden = false;
    problem.textContent = e instanceof AuthNeeded ? REFUSED : e.message;
  }
  await refresh();
});

login.addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value);
  document.getElementById("token").value = "";
  refresh();
});

refresh();
`;
