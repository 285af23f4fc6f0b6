/**
 * `POST /connectors/<name>/tables/<alias>/reconcile`: starts a reconcile pass of one table now (202), without
 * waiting for it; its progress and result show in `GET /connectors/<name>/tables` (`reconcile`). 404 for an
 * unknown connector or alias; 409 when no pass can start: the table's passes are off, a pass is running, or the
 * table's task does not run here (another member of the worker group, or not started).
 */
import type { Herder } from "../runtime/herder.ts";
import type { Router } from "./router.ts";
import { errorResponse, json } from "./responses.ts";

export function tableReconcileRoutes(router: Router, herder: Herder): void {
  router.add("POST", "/connectors/:name/tables/:alias/reconcile", (_r, p) => {
    const info = herder.info(p.name); // 404 for an unknown connector
    const aliases = String(info.config["svc.tables"] ?? "").split(",").map((a) => a.trim());
    if (info.type !== "source" || !aliases.includes(p.alias)) {
      return errorResponse(404, `connector ${p.name} has no table ${p.alias}`);
    }
    const runner = herder.allTasks()
      .find((t) => t.connector === p.name && t.task.progress.some((t) => t.alias === p.alias))?.task;
    const progress = runner?.progress.find((t) => t.alias === p.alias);
    if (runner === undefined || progress === undefined) {
      return errorResponse(409, `table ${p.alias} of ${p.name} has no running task on this worker`);
    }
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
