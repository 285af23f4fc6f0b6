/**
 * When a table's next request may go, and what a failed one does to the table: the poll interval after a sweep,
 * a backoff after a failure, a smaller page after an oversized response, or the error that fails the task.
 *
 * Failures are kept to the table: an access error (403 and the like) or a retriable failure makes this table back
 * off (1 s doubling to errors.retry.delay.max.ms, 60 s) and retry the same page while the task's other tables go
 * on; the gauge `tablesync_source_table_stalled{table,alias,cause}` and a warning in the task's status show it
 * (logged once per outage, not per retry) until a page succeeds. With a positive errors.retry.timeout, the instance
 * failing longer than that fails the task (TransientTaskFailure), which the daemon restarts by itself. A failure
 * no retry can fix
 * (the instance clock, a window of hidden rows that cannot be split) and anything that is not an instance failure
 * are thrown: they fail the task.
 */
import { type SourceTaskContext, TransientTaskFailure } from "../connect/task_api.ts";
import {
  InstanceClockError,
  InstanceConfigError,
  InstanceHttpError,
  InstanceRetriableError,
  ResponseTooLargeError,
} from "../instance/mod.ts";
import { backoffCeiling, sleepEndingOnAbort } from "../common/delay.ts";
import { steadyNow } from "../common/steady_clock.ts";
import { UnsplittableWindowError } from "./page_window.ts";
import type { StepObserver } from "./progress_tracker.ts";
import type { TableSettings } from "./settings.ts";
import { TableStalledError } from "./table_stalled.ts";

/** Pages that must succeed at a halved page size before it is doubled back towards the configured one. */
const PAGES_BEFORE_RESTORE = 8;
/** Backoff of a failing table: 1 s doubling to at most 60 s. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

/** Instance failures that concern this table only and may go away: back off and retry. */
function isTableLevelFailure(error: unknown): boolean {
  if (error instanceof InstanceConfigError) return false;
  return error instanceof InstanceHttpError || error instanceof InstanceRetriableError ||
    error instanceof ResponseTooLargeError;
}

/** The cause of a failure no retry can fix (the table would never progress), or null. */
function persistentCause(error: unknown): string | null {
  if (error instanceof InstanceClockError) return "instance_clock";
  if (error instanceof UnsplittableWindowError) return "hidden_rows";
  return null;
}

export class TableBackoff {
  readonly #t: TableSettings;
  readonly #context: SourceTaskContext;
  readonly #progress: StepObserver | undefined;
  readonly #labels: Record<string, string>;
  /** When the next request may go, on the steady clock (steady_clock.ts): a host clock step moves nothing. */
  #nextAt = 0;
  #failures = 0;
  /** When the current run of failures began (0: none). */
  #failingSince = 0;
  /** The cause the stalled gauge currently shows for a backing-off table, if any. */
  #cause: string | null = null;
  #limit: number;
  /** Pages read in a row at the current, halved page size. */
  #pagesAtLimit = 0;

  constructor(table: TableSettings, context: SourceTaskContext, progress?: StepObserver) {
    this.#t = table;
    this.#context = context;
    this.#progress = progress;
    this.#labels = { table: table.table, alias: table.alias };
    this.#limit = table.batchSize;
  }

  /** The page size to ask for: the configured one, or less after oversized responses. */
  get limit(): number {
    return this.#limit;
  }

  /** Waits until the table's next request may go (or the signal aborts). */
  /** When the next request may go (steady clock). */
  get nextAt(): number {
    return this.#nextAt;
  }

  wait(signal: AbortSignal): Promise<void> {
    return sleepEndingOnAbort(this.#nextAt - steadyNow(), signal);
  }

  /**
   * A sweep ended (or found nothing to do): the next one waits `intervalMs` (the poll interval, or the
   * scheduler's, poll_scheduler.ts), its end moved by `align` (the instant to poll at instead, poll_batching.ts)
   * when given, but never past `latestAt` (the scheduler's deadline for the ceiling).
   */
  pollIntervalStarts(
    intervalMs = this.#t.pollIntervalMs,
    align?: (dueAt: number, intervalMs: number) => number,
    latestAt = Infinity,
  ): void {
    const dueAt = steadyNow() + intervalMs;
    this.#nextAt = Math.min(align ? align(dueAt, intervalMs) : dueAt, Math.max(dueAt, latestAt));
  }

  /** The next poll goes at `at` instead (the poll scheduler postponed it). */
  pollAt(at: number): void {
    this.#nextAt = at;
  }

  /**
   * A page was read. After an oversized response halved the page size, a run of pages that fit doubles it back
   * (up to the configured batch size): large rows are often a local cluster, and a page size left halved for
   * good would cost requests for the rest of the run. If the rows are still too large, the next page halves it
   * again.
   */
  pageRead(): void {
    if (this.#limit >= this.#t.batchSize || ++this.#pagesAtLimit < PAGES_BEFORE_RESTORE) return;
    this.#limit = Math.min(this.#t.batchSize, this.#limit * 2);
    this.#pagesAtLimit = 0;
    this.#context.logger.info(
      { ...this.#labels, limit: this.#limit },
      "page size raised back after pages that fit",
    );
  }

  /** A step succeeded: the backoff and its gauge end. */
  recovered(): void {
    if (this.#failures > 0) this.#context.taskWarnings?.clear(this.#warningKey);
    this.#failures = 0;
    this.#failingSince = 0;
    this.#clearCause();
  }

  /** A failed step: the table backs off, or the error is thrown when it must fail the task. */
  failed(error: unknown): void {
    const cause = persistentCause(error);
    if (cause !== null) throw this.#stalled(cause, error as Error);
    if (!isTableLevelFailure(error)) throw error;
    this.#backOff(error as Error);
  }

  #backOff(error: Error): void {
    this.#failures++;
    this.#progress?.failed(error);
    if (error instanceof ResponseTooLargeError && this.#limit > 1) {
      // The page was too big to read: the same rows in smaller pages will do.
      this.#limit = Math.max(1, Math.floor(this.#limit / 2));
      this.#pagesAtLimit = 0;
      this.#context.logger.warn(
        { ...this.#labels, limit: this.#limit },
        `${error.message}; halving the page size`,
      );
      return;
    }
    if (this.#failures === 1) this.#failingSince = performance.now();
    this.#giveUpPastRetryTimeout(error);
    const delay = backoffCeiling(this.#failures, FIRST_BACKOFF_MS, this.#t.retryDelayMaxMs ?? MAX_BACKOFF_MS);
    this.#nextAt = steadyNow() + delay;
    this.#context.metrics.increment("tablesync_source_table_errors_total", this.#labels);
    // While it backs off the table does not progress: the gauge says so, with the cause, until a page succeeds.
    this.#setCause(error instanceof InstanceHttpError ? `http_${error.status}` : "retriable");
    const sentence =
      `table ${this.#t.table} (alias ${this.#t.alias}) failed; backing off, other tables continue: ${error.message}`;
    const fields = { ...this.#labels, retryInMs: delay, failures: this.#failures };
    // One line per outage, in the log and in the task's status, not one per retry: the first failure raises
    // the warning, the page that succeeds clears it (recovered), the retries between only go to debug.
    if (this.#failures > 1) this.#context.logger.debug(fields, sentence);
    else if (this.#context.taskWarnings) this.#context.taskWarnings.set(this.#warningKey, sentence);
    else this.#context.logger.warn(fields, sentence);
  }

  /**
   * With a positive `errors.retry.timeout`, a transient instance fault that lasted longer fails the task with one
   * line naming it; the daemon restarts the task by itself (herder/transient_restarts.ts).
   */
  #giveUpPastRetryTimeout(error: Error): void {
    const timeoutMs = this.#t.retryTimeoutMs ?? 0;
    const failingMs = performance.now() - this.#failingSince;
    if (timeoutMs <= 0 || !(error instanceof InstanceRetriableError) || failingMs < timeoutMs) return;
    this.#context.taskWarnings?.clear(this.#warningKey);
    throw new TransientTaskFailure(
      `table ${this.#t.table} (alias ${this.#t.alias}): the instance failed every request for ` +
        `${Math.round(failingMs / 1000)} s, past errors.retry.timeout (${timeoutMs} ms): ${error.message}`,
    );
  }

  get #warningKey(): string {
    return `table:${this.#t.alias}`;
  }

  #setCause(cause: string): void {
    if (this.#cause !== null && this.#cause !== cause) this.#clearCause();
    this.#cause = cause;
    this.#context.metrics.set("tablesync_source_table_stalled", { ...this.#labels, cause }, 1);
  }

  #clearCause(): void {
    if (this.#cause === null) return;
    this.#context.metrics.set("tablesync_source_table_stalled", { ...this.#labels, cause: this.#cause }, 0);
    this.#cause = null;
  }

  /** Reports a table that cannot progress: the gauge with its cause, and the error that fails the task. */
  #stalled(cause: string, error: Error): TableStalledError {
    const t = this.#t;
    this.#context.metrics.set("tablesync_source_table_stalled", { ...this.#labels, cause }, 1);
    const stalled = new TableStalledError(t.table, t.alias, cause, error.message);
    this.#context.logger.error({ ...this.#labels, cause }, stalled.message);
    return stalled;
  }
}
