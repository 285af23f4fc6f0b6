/**
 * A task that failed on a transient fault is restarted by the daemon itself, never left FAILED for an operator:
 * Kafka out of reach for longer than delivery.timeout.ms (a broker down for a long maintenance) fails the task
 * with one message, as Connect's would, and the task starts again after a backoff (5 s, doubling up to 60 s;
 * back to 5 s once a task has run 10 minutes without such a failure). A restarted task resumes from its committed
 * offsets, so nothing is lost; while Kafka stays away each attempt fails again and waits longer.
 */
import { logger } from "../../observability/log.ts";

const FIRST_DELAY_MS = 5_000;
const MAX_DELAY_MS = 60_000;
const RESET_AFTER_MS = 10 * 60_000;

const log = logger("runtime");

export class TransientRestarts {
  readonly #restart: (connector: string, taskId: number) => Promise<void>;
  readonly #last = new Map<string, { attempt: number; at: number }>();

  /** `restart` runs the restart (in the connector's command queue); it restarts only a task still FAILED. */
  constructor(restart: (connector: string, taskId: number) => Promise<void>) {
    this.#restart = restart;
  }

  /**
   * Schedules the restart of a task that failed transiently; `stillFailed` is asked when the backoff has passed
   * (false once the task was restarted, stopped or deleted meanwhile).
   */
  schedule(connector: string, taskId: number, stillFailed: () => boolean): void {
    const label = `${connector}-${taskId}`;
    const previous = this.#last.get(label);
    const attempt = previous && Date.now() - previous.at < RESET_AFTER_MS ? previous.attempt + 1 : 0;
    this.#last.set(label, { attempt, at: Date.now() });
    const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt);
    log.warn(
      { connector, task: taskId, delayMs: delay },
      `task ${label} failed on a transient fault; restarting it in ${delay / 1000} s`,
    );
    const timer = setTimeout(() => {
      if (!stillFailed()) return;
      this.#restart(connector, taskId).catch((e) =>
        log.error({ connector, task: taskId, err: e }, `restarting task ${label} failed`)
      );
    }, delay);
    // A pending restart does not keep a stopping daemon alive.
    Deno.unrefTimer(timer);
  }
}
