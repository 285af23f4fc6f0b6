/**
 * `POST /connectors/<name>/tables/<alias>/reconcile`: starts a reconcile pass of one table now (202), without
 * waiting for it; its progress and result show in `GET /connectors/<name>/tables` (`reconcile`). 404 for an
 * unknown connector or alias; 409 when no pass can start: the table's passes are off, a pass is running, or the
 * table's task does not run here (another member of the worker group, or not started).
 */
import type { Herder } from "../runtime/herder.ts";
import type { Router } from "./router.ts";
import { errorResponse, json } from "./responses.ts";
import { tableTask } from "./table_task.ts";

export function tableReconcileRoutes(router: Router, herder: Herder): void {
  router.add("POST", "/connectors/:name/tables/:alias/reconcile", (_r, p) => {
    const found = tableTask(herder, p.name, p.alias);
    if (found instanceof Response) return found;
    const { runner, progress } = found;
    if (!progress.reconcile) {
      return errorResponse(
        409,
        `reconcile passes of table ${p.alias} are off (svc.source.reconcile.interval.seconds or ` +
          `svc.table.${p.alias}.reconcile.interval.seconds is 0)`,
      );
    }
    if (progress.reconcile.running !== null) {
      return errorResponse(409, `a reconcile pass of table ${p.alias} is running`);
    }
    runner.reconcile(p.alias);
    return json({ connector: p.name, alias: p.alias, reconcile: "requested" }, 202);
  });
}
