/**
 * Kafka out of reach, said once: a broker restarted or hung makes kafkajs fail every connection attempt and every
 * request until it is back, and each failure used to be a warning with its stack. Retrying through that is
 * routine (Kafka's Java clients retry for delivery.timeout.ms), so one client's outage is one sentence when it
 * begins ("Kafka unreachable at host:port: ECONNREFUSED; retrying ...") and one when a request succeeds again;
 * the failures in between are debug lines.
 *
 * `isUnreachable` tells the faults of reaching the cluster (connection refused, closed or timed out, a request
 * unanswered, a leader or coordinator away while a broker restarts) from answers about the request itself.
 */
import { TransactionTimedOutError } from "./errors.ts";
import type { Logger } from "../observability/log.ts";

/** kafkajs errors that mean the cluster (or one of its brokers) could not be reached or did not answer. */
const UNREACHABLE_NAMES = new Set([
  "KafkaJSConnectionError",
  "KafkaJSConnectionClosedError",
  "KafkaJSRequestTimeoutError",
  "KafkaJSBrokerNotFound",
  "KafkaJSMetadataNotLoaded",
  "KafkaJSLockTimeout",
  "KafkaJSGroupCoordinatorNotFound",
  "KafkaJSNoBrokerAvailableError",
  "KafkaJSTopicMetadataNotLoaded",
]);

/** Broker answers while a restarted broker loads its logs or elects leaders and coordinators again. */
const UNAVAILABLE_TYPES = new Set([
  "NETWORK_EXCEPTION",
  "REQUEST_TIMED_OUT",
  "LEADER_NOT_AVAILABLE",
  "NOT_LEADER_FOR_PARTITION",
  "NOT_LEADER_OR_FOLLOWER",
  "NOT_ENOUGH_REPLICAS",
  "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
  "COORDINATOR_NOT_AVAILABLE",
  "GROUP_COORDINATOR_NOT_AVAILABLE",
  "NOT_COORDINATOR",
  "NOT_COORDINATOR_FOR_GROUP",
  "COORDINATOR_LOAD_IN_PROGRESS",
  "GROUP_LOAD_IN_PROGRESS",
  "KAFKA_STORAGE_ERROR",
]);

/** Socket errors of a connection that could not be made or was lost. */
export const SOCKET_ERRORS =
  /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOTFOUND)\b/;

/** The reason a kafkajs message gives, in short: the socket error's code, or that a request went unanswered. */
export function reasonInText(text: string): string | undefined {
  const code = SOCKET_ERRORS.exec(text)?.[1];
  if (code) return code;
  if (/timed out|timeout/i.test(text)) return "no answer within request.timeout.ms";
  if (/closed connection|connection closed/i.test(text)) return "connection closed";
  return undefined;
}

/** An error and every error it wraps (kafkajs wraps retries and aggregates). */
function causes(error: unknown, depth = 0): unknown[] {
  if (error === null || typeof error !== "object" || depth > 6) return [];
  const e = error as { cause?: unknown; errors?: unknown[]; originalError?: unknown };
  return [
    error,
    ...causes(e.cause, depth + 1),
    ...causes(e.originalError, depth + 1),
    ...(Array.isArray(e.errors) ? e.errors.flatMap((inner) => causes(inner, depth + 1)) : []),
  ];
}

/** Whether `error` (or what it wraps) is a fault of reaching the cluster, which retrying outlives. */
export function isUnreachable(error: unknown): boolean {
  return causes(error).some((e) => {
    const { name, type } = e as { name?: string; type?: string };
    return (name !== undefined && UNREACHABLE_NAMES.has(name)) || name === "DeliveryTimeoutError" ||
      (type !== undefined && UNAVAILABLE_TYPES.has(type));
  });
}

/**
 * Whether `error` (or what it wraps) is a transaction the coordinator aborted on its timeout, Kafka having been out
 * of reach or paused that long (TransactionTimedOutError): the task restarts, as after an outage.
 */
export function isTransactionTimedOut(error: unknown): boolean {
  return causes(error).some((e) => e instanceof TransactionTimedOutError);
}

/**
 * Whether `error` is a Kafka fault a task outlives by starting again: the cluster out of reach, a transaction the
 * coordinator timed out, or a transaction answered CONCURRENT_TRANSACTIONS. kafkajs never retries EndTxn: a commit
 * that reaches the coordinator while it is still aborting the transaction it timed out (or writing an earlier
 * one's markers) fails the transaction; the restarted task's InitProducerId waits until the coordinator is done and
 * the task resumes from the last committed transaction.
 */
export function isTransient(error: unknown): boolean {
  return isUnreachable(error) || isTransactionTimedOut(error) ||
    causes(error).some((e) => (e as { type?: string }).type === "CONCURRENT_TRANSACTIONS");
}

/** A short reason: the socket error code ("ECONNREFUSED"), an unanswered request, or the broker's answer. */
export function unreachableReason(error: unknown): string {
  for (const e of causes(error)) {
    const { type, message = "" } = e as { type?: string; message?: string };
    const reason = reasonInText(message) ??
      (type !== undefined && UNAVAILABLE_TYPES.has(type) ? type : undefined);
    if (reason) return reason;
  }
  return String((error as Error)?.message ?? error);
}

/**
 * One client's view of whether Kafka is reachable. `report` receives the sentence when an outage begins and
 * null when it ends (a task shows it as a status warning); without it, both are logged here.
 */
export class KafkaOutage {
  readonly #log: Logger;
  readonly #retrying: string;
  readonly #report: ((sentence: string | null) => void) | undefined;
  #since: number | null = null;
  #reason: string | undefined;

  constructor(log: Logger, retrying: string, report?: (sentence: string | null) => void) {
    this.#log = log;
    this.#retrying = retrying;
    this.#report = report;
  }

  /** The reason of the outage under way (undefined while Kafka is reachable). */
  get reason(): string | undefined {
    return this.#since === null ? undefined : this.#reason;
  }

  /** A request or connection failed on `broker` (host:port, when known) for `reason`. */
  unreachable(broker: string | undefined, reason: string): void {
    if (this.#since !== null) return;
    this.#since = Date.now();
    this.#reason = reason;
    const sentence = `Kafka unreachable${
      broker ? ` at ${broker}` : ""
    }: ${reason}; retrying (${this.#retrying})`;
    if (this.#report) this.#report(sentence);
    else this.#log.warn({ broker, reason }, sentence);
  }

  /** A request succeeded: an outage, if there was one, is over. */
  reachable(): void {
    if (this.#since === null) return;
    const seconds = Math.round((Date.now() - this.#since) / 100) / 10;
    this.#since = null;
    if (this.#report) this.#report(null);
    this.#log.info({ unreachableSeconds: seconds }, `Kafka reachable again after ${seconds} s`);
  }
}
