/**
 * The spec's fixed retry rules (Errors 6): which failures are retryable, and how long to wait before the next
 * attempt, if any. Deciding is separate from sleeping so the rules can be tested without time passing.
 */
import { backoffCeiling, fullJitter } from "./delay.ts";

/** The retry settings (the instance's `svc.retry.*`, the registry's `max.retries` and `retries.*wait.ms`). */
export interface RetryOptions {
  /** Total attempts including the first (`svc.retry.max.attempts`, default 5). */
  maxAttempts: number;
  /** No retry whose wait would end past this (`svc.retry.max.elapsed.ms`, default 300000). */
  maxElapsedMs: number;
  /** First backoff ceiling (`svc.retry.initial.backoff.ms`, default 500). */
  initialBackoffMs: number;
  /** Largest backoff ceiling (`svc.retry.max.backoff.ms`, default 30000). */
  maxBackoffMs: number;
}

/** 429, 408, 425 and any 5xx. The set is fixed by the spec; nothing else is retried. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status === 425 || (status >= 500 && status <= 599);
}

export type RetryDecision = { retry: true; waitMs: number } | { retry: false; reason: string };

export class RetryPolicy {
  constructor(private readonly options: RetryOptions, private readonly random: () => number = Math.random) {}

  /**
   * Whether to try again after `attempts` attempts (all failed retryably), `elapsedMs` after the first one
   * started. A `Retry-After` delay replaces the backoff; a retry whose wait would end past
   * `svc.retry.max.elapsed.ms` is not made.
   */
  next(attempts: number, elapsedMs: number, retryAfterMs: number | null): RetryDecision {
    const { maxAttempts, maxElapsedMs, initialBackoffMs, maxBackoffMs } = this.options;
    if (attempts >= maxAttempts) {
      return { retry: false, reason: `svc.retry.max.attempts (${maxAttempts}) reached` };
    }
    const waitMs = retryAfterMs ??
      fullJitter(backoffCeiling(attempts, initialBackoffMs, maxBackoffMs), this.random);
    if (elapsedMs + waitMs > maxElapsedMs) {
      return {
        retry: false,
        reason:
          `the next wait (${waitMs} ms${retryAfterMs === null ? "" : ", from Retry-After"}) would pass ` +
          `svc.retry.max.elapsed.ms (${maxElapsedMs})`,
      };
    }
    return { retry: true, waitMs };
  }
}
