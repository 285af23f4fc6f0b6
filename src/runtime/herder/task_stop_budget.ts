/**
 * The time budget of a task's graceful stop, in one place: how `task.shutdown.graceful.timeout.ms` is spent.
 * The main thread works it out and sends it with the `stop` message (task/thread_messages.ts); the task thread
 * follows it (task/task_thread.ts), and the main thread terminates the task thread at its end (task_runner.ts).
 *
 * From the stop request on:
 *  1. until `abandonWritesAfterMs` (60 %), instance writes already sent may finish, so that they are committed;
 *     then they are abandoned (their records are redelivered, or for a sink committed up to the first one not
 *     written);
 *  2. until `awaitDriverMs` (80 %), the task thread waits for its driver's final commit; the last fifth is left
 *     for closing the task and its Kafka clients;
 *  3. at `terminateAfterMs` (the timeout plus a second for the `stopped` message to arrive), a task thread that
 *     has not reported `stopped` is terminated.
 *
 * ```ts
 * const budget = taskStopBudget(30_000); // { abandonWritesAfterMs: 18000, awaitDriverMs: 24000, terminateAfterMs: 31000 }
 * ```
 */

/** The share of the timeout that writes already sent have to finish. */
const ABANDON_WRITES_SHARE = 0.6;
/** The share of the timeout the task thread waits for its driver's final commit. */
const AWAIT_DRIVER_SHARE = 0.8;
/** Past the timeout, how long the main thread waits for the `stopped` message before it terminates. */
const TERMINATE_GRACE_MS = 1000;

export interface TaskStopBudget {
  /** Since the stop request: in-flight instance writes are abandoned after this. */
  readonly abandonWritesAfterMs: number;
  /** Since the stop request: the task thread stops waiting for its driver after this and closes. */
  readonly awaitDriverMs: number;
  /** Since the stop request: the main thread terminates a task thread that has not reported `stopped`. */
  readonly terminateAfterMs: number;
}

/** The budget of a graceful stop given `task.shutdown.graceful.timeout.ms`. */
export function taskStopBudget(timeoutMs: number): TaskStopBudget {
  return {
    abandonWritesAfterMs: timeoutMs * ABANDON_WRITES_SHARE,
    awaitDriverMs: timeoutMs * AWAIT_DRIVER_SHARE,
    terminateAfterMs: timeoutMs + TERMINATE_GRACE_MS,
  };
}
