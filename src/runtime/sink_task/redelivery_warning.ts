/**
 * A sink's redelivery after a retriable failure (the instance away, refusing writes for a while) shows once per
 * outage: one warning in the log and in the task's status when the first partition starts redelivering, cleared
 * when the last one's records are taken. Each retry logs at debug only, so an outage of minutes is one line, not
 * a stack per attempt.
 */
import type { Logger } from "../../observability/log.ts";
import type { TaskWarnings } from "../task/task_warnings.ts";

/** The key of the warning in the task's status. */
const REDELIVERING = "sink-redelivering";

export class RedeliveryWarning {
  /** Partitions (keys of the driver's choice) whose records are being redelivered. */
  readonly #retrying = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly warnings: Pick<TaskWarnings, "set" | "clear">,
  ) {}

  /** The records of `partition` failed retriably and are redelivered after `waitMs`. */
  redelivering(partition: string, error: Error, attempt: number, waitMs: number): void {
    this.#retrying.add(partition);
    const fields = { attempt, waitMs: Math.round(waitMs), partition: partition.replace("\u0000", "-") };
    this.logger.debug({ ...fields, err: error }, "put failed retriably; redelivering");
    if (this.#retrying.size === 1 && attempt === 1) {
      this.warnings.set(
        REDELIVERING,
        `writing to the instance failed; redelivering with backoff: ${error.message}`,
      );
    }
  }

  /** The records of `partition` were taken: once no partition is redelivered any more, the warning clears. */
  delivered(partition: string): void {
    if (!this.#retrying.delete(partition) || this.#retrying.size > 0) return;
    this.warnings.clear(REDELIVERING);
  }
}
