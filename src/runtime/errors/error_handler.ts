/**
 * Kafka Connect's RetryWithToleranceOperator: runs one stage of a record's journey, retrying retriable
 * failures within `errors.retry.timeout` and, once retries are over, tolerating the failure (skip, log,
 * dead letter queue) when `errors.tolerance=all` and the stage allows it, or failing the task otherwise.
 */
import type { Logger } from "../../observability/log.ts";
import { redact } from "../../observability/redact.ts";
import { backoffCeiling, fullJitter, sleepEndingOnAbort } from "../../common/delay.ts";
import { RetriableException } from "../../connect/task_api.ts";
import type { DeadLetterQueue, FailedRecord } from "./dead_letter_queue.ts";
import { javaClassName, type Stage, toleratesAnyError } from "./stage.ts";
import type { MetricsRegistry } from "../../observability/metrics.ts";

/** Connect's minimum delay between retries. */
const RETRIES_DELAY_MIN_MS = 300;

export interface ErrorHandlingConfig {
  /** `errors.retry.timeout`: 0 = no retries, -1 = forever. */
  retryTimeoutMs: number;
  /** `errors.retry.delay.max.ms`. */
  retryDelayMaxMs: number;
  /** `errors.tolerance`. */
  toleranceAll: boolean;
  /** `errors.log.enable`. */
  logEnable: boolean;
  /** `errors.log.include.messages`. */
  logIncludeMessages: boolean;
}

/** The task must fail: the error was not tolerated. Carries the original error as cause. */
export class ToleranceExceededError extends Error {
  readonly javaClassName = "org.apache.kafka.connect.errors.ConnectException";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConnectException";
  }
}

export type StageResult<T> = { ok: true; value: T } | { ok: false; error: Error };

export interface StageContext {
  /** Kafka Connect's "executing class" for logs and the DLQ header. */
  executingClass: string;
  /** What the record was before this stage, for the DLQ. */
  failedRecord?: () => FailedRecord;
  /** A one-line description of the record for logs (only used with errors.log.include.messages). */
  describe?: () => string;
}

export class ErrorHandler {
  #config: ErrorHandlingConfig;
  #log: Logger;
  #dlq: DeadLetterQueue | null;
  #metrics: MetricsRegistry;
  #signal: AbortSignal;
  #taskLabel: string;

  constructor(
    config: ErrorHandlingConfig,
    deps: {
      logger: Logger;
      dlq: DeadLetterQueue | null;
      metrics: MetricsRegistry;
      signal: AbortSignal;
      taskLabel: string;
    },
  ) {
    this.#config = config;
    this.#log = deps.logger;
    this.#dlq = deps.dlq;
    this.#metrics = deps.metrics;
    this.#signal = deps.signal;
    this.#taskLabel = deps.taskLabel;
  }

  get toleranceAll(): boolean {
    return this.#config.toleranceAll;
  }

  /**
   * Runs `fn` for one stage. Resolves `{ok: true}` with its value, `{ok: false}` when the failure was tolerated
   * (the record is to be skipped; it has been logged and dead-lettered), and rejects with ToleranceExceededError
   * when the task must fail.
   */
  async execute<T>(stage: Stage, fn: () => T | Promise<T>, context: StageContext): Promise<StageResult<T>> {
    const deadline = this.#config.retryTimeoutMs < 0 ? Infinity : Date.now() + this.#config.retryTimeoutMs;
    for (let attempt = 1;; attempt++) {
      try {
        return { ok: true, value: await fn() };
      } catch (e) {
        const error = e instanceof Error ? e : new Error(String(e));
        if (error instanceof RetriableException && Date.now() < deadline && !this.#signal.aborted) {
          await sleepEndingOnAbort(this.#retryDelay(attempt, deadline), this.#signal);
          continue;
        }
        return await this.handleFailure(stage, error, context);
      }
    }
  }

  /**
   * Applies tolerance to a failure that happened outside `execute`. `anyError` makes every error tolerable, for
   * record errors a connector reports itself (bad rows, permanent write failures: Connect's ErrantRecordReporter).
   */
  async handleFailure<T>(
    stage: Stage,
    error: Error,
    context: StageContext,
    anyError = false,
  ): Promise<StageResult<T>> {
    const tolerable = anyError || toleratesAnyError(stage) || error instanceof RetriableException;
    this.#metrics.increment("tablesync_errors_total", {
      stage,
      handling: tolerable && this.#config.toleranceAll ? "skipped" : "failed",
    });
    if (!tolerable || !this.#config.toleranceAll) {
      throw new ToleranceExceededError(
        tolerable
          ? `Tolerance exceeded in error handler: ${stage} failed in ${context.executingClass}: ${
            redact(error.message)
          }`
          : `Unhandled exception in error handler: ${stage} failed in ${context.executingClass}: ${
            redact(error.message)
          }`,
        { cause: error },
      );
    }
    if (this.#config.logEnable) {
      const where = this.#config.logIncludeMessages && context.describe
        ? `, where ${context.describe()}`
        : "";
      this.#log.error(
        { stage, class: context.executingClass, exception: javaClassName(error), err: error },
        `Error encountered in task ${this.#taskLabel}. Executing stage '${stage}' with class '${context.executingClass}'${where}.`,
      );
    }
    if (this.#dlq && context.failedRecord) {
      // Delivery to the DLQ is part of handling the record: the offset must not pass it before this resolves.
      await this.#dlq.report(context.failedRecord(), stage, context.executingClass, error);
      this.#metrics.increment("tablesync_dlq_records_total", { stage });
    }
    return { ok: false, error };
  }

  /** Connect's backoff: 300 ms doubled per attempt; past the maximum, a random delay up to it; never past the deadline. */
  #retryDelay(attempt: number, deadline: number): number {
    let delay = backoffCeiling(attempt, RETRIES_DELAY_MIN_MS, Infinity);
    if (delay > this.#config.retryDelayMaxMs) delay = fullJitter(this.#config.retryDelayMaxMs);
    return Math.max(0, Math.min(delay, deadline - Date.now()));
  }
}

/** Reads Connect's `errors.*` keys from typed props. */
export function errorHandlingConfig(props: Readonly<Record<string, unknown>>): ErrorHandlingConfig {
  return {
    retryTimeoutMs: props["errors.retry.timeout"] as number,
    retryDelayMaxMs: props["errors.retry.delay.max.ms"] as number,
    toleranceAll: props["errors.tolerance"] === "all",
    logEnable: props["errors.log.enable"] === true,
    logIncludeMessages: props["errors.log.include.messages"] === true,
  };
}
