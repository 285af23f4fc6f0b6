/**
 * `POST /connectors/<name>/tables/<alias>/snapshot`, optional body `{"query": "<encoded query>"}`: the table's
 * task re-reads every row of the table (its own query ANDed with the given one) and sends each as a record once
 * more, while streaming goes on (src/source/snapshot/). Answers 202 with the snapshot's id at once; its progress
 * shows in `GET /connectors/<name>/tables` (`snapshot`). 400 for a bad query, 404 for an unknown connector or
 * alias, 409 when a snapshot of the table runs or the table's task does not run here.
 */
import type { Herder } from "../runtime/herder.ts";
import { snapshotQuery } from "../config/snapshot_query.ts";
import { isPlainObject } from "../common/plain_object.ts";
import type { Router } from "./router.ts";
import { errorResponse, json, readJson } from "./responses.ts";
import type { SnapshotLedger } from "./snapshot_ledger.ts";
import { tableTask } from "./table_task.ts";

export function tableSnapshotRoutes(router: Router, herder: Herder, ledger: SnapshotLedger): void {
  router.add("POST", "/connectors/:name/tables/:alias/snapshot", async (request, p) => {
    const found = tableTask(herder, p.name, p.alias);
    if (found instanceof Response) return found;
    const body = sentBody(request) ? await readJson(request) : {};
    if (!isPlainObject(body)) return errorResponse(400, "the body must be a JSON object");
    const unknown = Object.keys(body).filter((k) => k !== "query");
    if (unknown.length > 0) return errorResponse(400, `unknown field(s) in the body: ${unknown.join(", ")}`);
    const query = snapshotQuery(body.query);
    if ("problem" in query) return errorResponse(400, query.problem);
    if (ledger.progress(p.name, p.alias, found.runner)?.state === "running") {
      return errorResponse(409, `a re-snapshot of table ${p.alias} is running`);
    }
    const asked = { id: crypto.randomUUID(), query: query.query };
    ledger.asked(p.name, p.alias, asked, found.runner);
    found.runner.snapshot(p.alias, asked);
    return json({ connector: p.name, alias: p.alias, snapshot: asked.id, query: asked.query }, 202);
  });
}

/** Whether the request carries a body (a POST without one says Content-Length 0, or nothing at all). */
function sentBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return request.body !== null && length !== "0" &&
    (length !== null || request.headers.has("transfer-encoding"));
}
