/**
 * `svc.source.poll.batch`: whether a task's idle polls share Batch API requests, and the minimal tick policy that
 * makes them come due together. The coalescer (src/instance/read_coalescer.ts) gathers the window queries of
 * idle tables issued within GATHER_MS of each other; aligning each idle table's next poll to a tick of its poll
 * interval (`alignIdlePoll`) is what puts them within that window. Both are kept here, apart from the pollers, so
 * a poll scheduler can replace the tick policy without touching how reads are gathered.
 */
import type { Logger } from "../observability/log.ts";
import { ReadCoalescer, type TableClient } from "../instance/mod.ts";
import type { SourceSettings } from "./settings.ts";

/** How long an idle window query waits for others to join its batch. Ticks fire within a few ms of each other. */
export const GATHER_MS = 10;
/** Items per batch: idle window queries are small, and items run one after another within the 30 s quota. */
export const MAX_BATCH_ITEMS = 50;
/**
 * The largest body of a sweep's single page after which the table's next window query still counts as idle (a
 * small page expected): a full batch of such pages, base64-encoded, stays far below the Batch API's 10 MB per
 * item and the default svc.http.max.response.bytes.
 */
const IDLE_PAGE_BYTES = 256 * 1024;

/** Whether a table whose last sweep read `pages` pages, the last of `lastPageBytes`, is idle (small pages expected). */
export function idleAfter(pages: number, lastPageBytes: number): boolean {
  return pages === 1 && lastPageBytes <= IDLE_PAGE_BYTES;
}

/**
 * The instant an idle poll due at `dueAt` goes: the tick (a multiple of the interval on the local clock) nearest to
 * it, so tables with the same interval poll together. The wait after a sweep stays between half and one and a half
 * intervals.
 */
export function alignIdlePoll(dueAt: number, intervalMs: number): number {
  return Math.round(dueAt / intervalMs) * intervalMs;
}

/** Pollers a task runs: one per table, and one more per table whose deletions are captured. */
function pollersOf(settings: SourceSettings): number {
  return settings.tables.reduce((n, t) => n + (t.captureDeletes ? 2 : 1), 0);
}

/**
 * Sets the task's client up to coalesce idle reads when `svc.source.poll.batch` says so; returns the tick policy
 * for idle polls then, else undefined (each table polls on its own interval, one request per poll).
 */
export function pollBatchingFor(
  settings: SourceSettings,
  client: TableClient,
  logger: Logger,
): typeof alignIdlePoll | undefined {
  const mode = settings.pollBatch;
  if (mode === "false" || (mode === "auto" && pollersOf(settings) < 2)) return undefined;
  // auto: not while the host has a request budget (a rule, or svc.http.requests.per.hour). The instance runs
  // every item as a request of its own, so a batch saves none of the rule's budget: it costs one more.
  const alone = mode === "auto" ? () => (client.http.budget?.snapshot().limit ?? 0) > 0 : undefined;
  client.coalesceReads(
    new ReadCoalescer(client.http, {
      gatherMs: GATHER_MS,
      maxItems: MAX_BATCH_ITEMS,
      required: mode === "true",
      neededBy: `svc.source.poll.batch=${mode}`,
      aloneWhile: alone,
      onRefused: (error) =>
        logger.warn(
          { err: error },
          "the instance refused the Batch API: idle polls go as single requests (set svc.source.poll.batch=false to not try)",
        ),
    }),
  );
  // While idle polls go alone, a shared tick would only bunch them: every table at one interval due at one
  // instant, a burst the host's pacer queues (and a wait of up to half an interval more for each).
  return alone === undefined ? alignIdlePoll : alignedUnless(alone);
}

/** alignIdlePoll, except while `alone` says idle polls go singly: then a poll goes when it is due. */
function alignedUnless(alone: () => boolean): typeof alignIdlePoll {
  return (dueAt, intervalMs) => alone() ? dueAt : alignIdlePoll(dueAt, intervalMs);
}
