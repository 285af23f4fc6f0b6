/**
 * `GET /connectors/<name>/tables`: where each table of a source connector stands, one entry per alias, as its
 * task last reported it (TableProgress plus the task id; `snapshot` as the snapshot ledger resolves it). A sink
 * connector has no tables: `[]`.
 */
import type { Herder } from "../runtime/herder.ts";
import type { Router } from "./router.ts";
import { json } from "./responses.ts";
import type { SnapshotLedger } from "./snapshot_ledger.ts";

export function tableRoutes(router: Router, herder: Herder, snapshots: SnapshotLedger): void {
  router.add("GET", "/connectors/:name/tables", (_r, p) => {
    herder.info(p.name); // 404 for an unknown connector
    const tables = herder.allTasks()
      .filter((t) => t.connector === p.name)
      .flatMap(({ task }) =>
        task.progress.map((t) => {
          // Present once the table had a snapshot asked for (since this daemon started).
          const snapshot = snapshots.progress(p.name, t.alias, task);
          return {
            alias: t.alias,
            table: t.table,
            task: task.taskId,
            phase: t.phase,
            rows_emitted: t.rows_emitted,
            cursor: t.cursor,
            lag_seconds: t.lag_seconds,
            expected_staleness_seconds: t.expected_staleness_seconds,
            rows_remaining: t.rows_remaining,
            eta_seconds_estimate: t.eta_seconds_estimate,
            last_error: t.last_error,
            warning: t.warning ?? null,
            ...(t.reconcile ? { reconcile: t.reconcile } : {}),
            ...(snapshot ? { snapshot } : {}),
          };
        })
      )
      .sort((a, b) => a.alias.localeCompare(b.alias));
    return json(tables);
  });
}
