/**
 * The re-snapshots asked for over REST, kept in the main thread: a task reports its table's snapshot with its
 * progress, but a restarted task is a new task thread that knows nothing of it. The ledger keeps, per connector
 * and table, the latest snapshot asked for and the task it was handed to, so that `GET /connectors/<n>/tables`
 * shows a snapshot its task has not reported yet as `running`, and one whose task restarted (or stopped) before
 * it ended as `failed` with that reason, instead of forgetting it.
 */
import type { SnapshotProgress, SnapshotRequest } from "../connect/table_progress.ts";
import type { TaskRunner } from "../runtime/herder/task_runner.ts";

interface Asked {
  readonly request: SnapshotRequest;
  readonly startedAt: string;
  /** The task it was handed to. */
  readonly runner: TaskRunner;
}

const RESTARTED =
  "the task restarted or stopped before the snapshot ended (a snapshot is not resumed: ask again)";

export class SnapshotLedger {
  readonly #asked = new Map<string, Asked>();

  /** `request` was handed to `runner`'s task. */
  asked(connector: string, alias: string, request: SnapshotRequest, runner: TaskRunner): void {
    this.#asked.set(key(connector, alias), { request, startedAt: new Date().toISOString(), runner });
  }

  /** Where the table's latest snapshot stands; `current`: the runner whose task runs the table now, if any. */
  progress(connector: string, alias: string, current: TaskRunner | undefined): SnapshotProgress | null {
    const asked = this.#asked.get(key(connector, alias));
    if (asked === undefined) return current ? reportedBy(current, alias) : null;
    const reported = reportedBy(asked.runner, alias);
    const mine = reported?.id === asked.request.id ? reported : null;
    if (asked.runner === current) return mine ?? notReported(asked);
    if (mine !== null && mine.state !== "running") return mine;
    return { ...(mine ?? notReported(asked)), state: "failed", reason: RESTARTED };
  }
}

function key(connector: string, alias: string): string {
  return `${connector}\u0000${alias}`;
}

function reportedBy(runner: TaskRunner, alias: string): SnapshotProgress | null {
  return runner.progress.find((t) => t.alias === alias)?.snapshot ?? null;
}

/** Handed to the task, not reported by it yet (it reports every 2 s). */
function notReported(asked: Asked): SnapshotProgress {
  return {
    id: asked.request.id,
    query: asked.request.query,
    started_at: asked.startedAt,
    ended_at: null,
    rows_sent: 0,
    ranges_done: 0,
    ranges: 0,
    state: "running",
    reason: null,
  };
}
