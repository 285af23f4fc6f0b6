/**
 * `/sim/drift/…`: REST hooks that make drift (see drift.ts) in a simulator running in a process of its own, for
 * the demo and benchmarks. Not an instance API: no auth, not journaled, no faults, like `/sim/stats`.
 *
 *   POST /sim/drift/<table>/silent-update  {"sys_id":…, "values":{…}}      → the row
 *   POST /sim/drift/<table>/purge          {"sys_id":…}                    → {"purged":sys_id}
 *   POST /sim/drift/<table>/insert-dated   {"sys_updated_on":…, "values":{…}} → the row
 *   POST /sim/drift/<table>/snapshot                                        → {"snapshot":id}
 *   POST /sim/drift/restore                {"snapshot":id}                 → {"restored","reverted","removed"}
 *   GET  /sim/drift/snapshots                                               → [{id, table, takenAt, rows}]
 */
import { driftOf } from "../drift.ts";
import type { SimState } from "../state.ts";

export const SIM_DRIFT_PREFIX = "/sim/drift/";

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function problem(status: number, message: string): Response {
  return json(status, { error: { message }, status: "failure" });
}

async function bodyOf(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.trim() === "") return {};
  const parsed = JSON.parse(text);
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new RangeError("the body must be a JSON object");
  }
  return parsed;
}

function text(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== "string" || value === "") throw new RangeError(`"${name}" must be a non-empty string`);
  return value;
}

function values(body: Record<string, unknown>): Record<string, string> {
  const v = body.values ?? {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new RangeError(`"values" must be an object`);
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
}

export async function simDrift(state: SimState, request: Request, path: string): Promise<Response> {
  const drift = driftOf(state.db, state.clock, state.ids);
  const parts = path.slice(SIM_DRIFT_PREFIX.length).split("/").map(decodeURIComponent);
  const method = request.method.toUpperCase();
  try {
    if (parts.length === 1 && parts[0] === "snapshots" && method === "GET") {
      return json(200, drift.snapshots());
    }
    if (method !== "POST") {
      return problem(405, `${method} ${path}: use POST (GET only for /sim/drift/snapshots)`);
    }
    const body = await bodyOf(request);
    if (parts.length === 1 && parts[0] === "restore") return json(200, drift.restore(text(body, "snapshot")));
    const [table, action] = parts;
    if (parts.length === 2) {
      switch (action) {
        case "silent-update":
          return json(200, drift.silentUpdate(table, text(body, "sys_id"), values(body)));
        case "purge":
          drift.purge(table, text(body, "sys_id"));
          return json(200, { purged: body.sys_id });
        case "insert-dated":
          return json(201, drift.insertDated(table, values(body), text(body, "sys_updated_on")));
        case "snapshot":
          return json(201, { snapshot: drift.snapshot(table) });
      }
    }
    return problem(404, `unknown drift hook ${path}`);
  } catch (e) {
    return problem(400, `${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
