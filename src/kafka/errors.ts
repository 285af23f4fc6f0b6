/**
 * Error classes callers branch on. Everything else surfaces as the client library's error (or a plain Error),
 * whose message is already redacted by the logging layer when logged.
 */
import { ConfigError } from "../common/config_error.ts";

/** A Kafka client property has a value this client cannot honour; `property` names the key. A `ConfigError`. */
export class KafkaConfigError extends ConfigError {
  constructor(readonly property: string, message: string) {
    super(`${property}: ${message}`);
  }
}

/**
 * The cluster cannot create topics through the Admin API (no CreateTopics support, e.g. the librdkafka mock,
 * or no controller in its metadata). Callers fall back to broker auto-creation or report the topic as missing.
 */
export class TopicCreationUnsupportedError extends Error {
  override name = "TopicCreationUnsupportedError";
  constructor(readonly topic: string, readonly reason: string) {
    super(`cannot create topic "${topic}" through the Admin API: ${reason}`);
  }
}

/** The topic does not exist (and was not auto-created). */
export class UnknownTopicError extends Error {
  override name = "UnknownTopicError";
  constructor(readonly topic: string) {
    super(`topic "${topic}" does not exist`);
  }
}

/** The consumer group has active members, so its committed offsets cannot be altered from outside. */
export class GroupNotEmptyError extends Error {
  override name = "GroupNotEmptyError";
  constructor(readonly groupId: string) {
    super(`consumer group "${groupId}" has active members; stop them before altering its offsets`);
  }
}

/**
 * The Kafka protocol error type (e.g. "TOPIC_AUTHORIZATION_FAILED") of a client error, or of the error it wraps
 * (kafkajs wraps a broker's answer in retry and aggregate errors); null when there is none.
 */
export function kafkaErrorType(error: unknown): string | null {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const e = pending.shift() as {
      type?: unknown;
      cause?: unknown;
      originalError?: unknown;
      errors?: unknown;
    };
    if (!e || typeof e !== "object" || seen.has(e)) continue;
    seen.add(e);
    if (typeof e.type === "string") return e.type;
    pending.push(e.cause, e.originalError, ...(Array.isArray(e.errors) ? e.errors : []));
  }
  return null;
}

/**
 * A newer producer initialised the same transactional id: this one may never write or commit again (its open
 * transaction was aborted by the coordinator). Kafka answers INVALID_PRODUCER_EPOCH (47) to the request versions
 * kafkajs 2.2.4 sends and PRODUCER_FENCED (90) to newer ones; both mean this.
 */
export class ProducerFencedError extends Error {
  override name = "ProducerFencedError";
  constructor(readonly transactionalId: string, readonly reason: string, options?: ErrorOptions) {
    super(
      `the transactional producer "${transactionalId}" was fenced by a newer producer with the same id (${reason}): ` +
        `another owner of this task has started`,
      options,
    );
  }
}

/**
 * The coordinator aborted this producer's transaction because it stayed open past `transaction.timeout.ms` (Kafka
 * out of reach, or paused, for that long), bumping the id's epoch: the producer is refused from then on, as if
 * fenced, but no other owner exists. A task restarts with a new producer (the daemon does so by itself) and
 * resumes from the last committed transaction.
 */
export class TransactionTimedOutError extends Error {
  override name = "TransactionTimedOutError";
  constructor(
    readonly transactionalId: string,
    readonly openMs: number,
    readonly transactionTimeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(
      `the transaction of "${transactionalId}" was open ${Math.round(openMs / 1000)} s, past ` +
        `transaction.timeout.ms=${transactionTimeoutMs}: the broker aborted it and refuses this producer`,
      options,
    );
  }
}
