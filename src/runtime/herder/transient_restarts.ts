/**
 * Restarts a task that failed on a transient fault (TransientTaskFailure: the instance stayed away longer than
 * `errors.retry.timeout`, or Kafka out of reach longer than `delivery.timeout.ms`), by itself, with backoff: 5 s after
 * the first failure, doubling to at most 60 s while the task keeps failing, back to 5 s once it ran 10 minutes
 * without such a failure. A restarted task resumes from its committed offsets, so nothing is lost. An outage is ridden out without
 * an operator; the FAILED state and its one-line trace show between the attempts.
 */
import { backoffCeiling } from "../../common/delay.ts";
import { logger } from "../../observability/log.ts";

const log = logger("herder");

const FIRST_DELAY_MS = 5_000;
const MAX_DELAY_MS = 60_000;
/** A task that ran this long since its last transient failure starts again from the first delay. */
const FORGET_AFTER_MS = 10 * 60_000;

interface TaskHistory {
  failures: number;
  lastAt: number;
}

export class TransientRestarts {
  readonly #history = new Map<string, TaskHistory>();

  /**
   * Task `connector`-`taskId` failed on a transient fault: `restart` runs after the backoff (it must check that
   * the same task is still there and still FAILED: an operator may have restarted, changed or deleted it).
   */
  schedule(connector: string, taskId: number, restart: () => Promise<void>): void {
    const key = `${connector}\u0000${taskId}`;
    const now = Date.now();
    const past = this.#history.get(key);
    const failures = past && now - past.lastAt < FORGET_AFTER_MS ? past.failures + 1 : 1;
    this.#history.set(key, { failures, lastAt: now });
    const delayMs = backoffCeiling(failures, FIRST_DELAY_MS, MAX_DELAY_MS);
    log.info(
      { connector, task: taskId, delayMs, failures },
      `task ${connector}-${taskId} failed on a transient fault; restarting it in ${
        Math.round(delayMs / 1000)
      } s`,
    );
    const timer = setTimeout(() => {
      restart().catch((e) =>
        log.warn({ connector, task: taskId, err: String(e) }, `restarting task ${connector}-${taskId} failed`)
      );
    }, delayMs);
    // A pending restart never keeps a stopping daemon alive; a shutting-down herder refuses it anyway.
    Deno.unrefTimer(timer);
  }
}
