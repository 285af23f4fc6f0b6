/**
 * Java's producer semantics for a cluster out of reach: a send is retried, with backoff growing from
 * `retry.backoff.ms` to `retry.backoff.max.ms`, until it succeeds or `delivery.timeout.ms` has passed since it
 * began (or `retries` retries were made, when set); only then does it fail, with one error naming the fault and the
 * limit. kafkajs on its own gives up after a count of retries, about 20 s into a broker restart.
 *
 * Only faults of reaching the cluster are retried here (outage.ts): an answer about the request itself (a topic
 * that does not exist, a missing authorisation, a fenced producer) fails at once, as before.
 */
import { isUnreachable, type KafkaOutage, unreachableReason } from "./outage.ts";

export interface DeliveryLimits {
  /** `delivery.timeout.ms`: how long a send may be retried; default 120000. */
  deliveryTimeoutMs: number;
  /** `retry.backoff.ms`: the first backoff; default 100. */
  retryBackoffMs: number;
  /** `retry.backoff.max.ms`: the longest backoff; default 1000. */
  retryBackoffMaxMs: number;
  /** `retries`: at most this many retries of a send (Java's default: no count, only the delivery timeout). */
  retries: number;
}

/** The error of a send that ran out of delivery time while Kafka stayed out of reach. */
export class DeliveryTimeoutError extends Error {
  override readonly name = "DeliveryTimeoutError";
  /** Not retried by the caller: the retries are over (the task fails, and the daemon restarts it). */
  readonly retriable = false;
}

/** Runs `attempt` until it succeeds, retrying faults of reaching the cluster within `limits`. */
export async function retryUntilDelivered<T>(
  attempt: () => Promise<T>,
  limits: DeliveryLimits,
  outage?: KafkaOutage,
): Promise<T> {
  const started = Date.now();
  const deadline = started + limits.deliveryTimeoutMs;
  let backoff = limits.retryBackoffMs;
  let lastReason: string | undefined;
  for (let retry = 0;; retry++) {
    const remaining = deadline - Date.now();
    try {
      const result = await withinMs(attempt(), remaining);
      outage?.reachable();
      return result;
    } catch (error) {
      if (!isUnreachable(error) && !(error instanceof AttemptTimeout)) throw error;
      // An attempt cut off at the deadline says no more than the failures before it did.
      const reason = error instanceof AttemptTimeout
        ? lastReason ?? outage?.reason ?? "no answer"
        : unreachableReason(error);
      lastReason = reason;
      outage?.unreachable(undefined, reason);
      const elapsed = Date.now() - started;
      if (elapsed + backoff >= limits.deliveryTimeoutMs || retry >= limits.retries) {
        const limit = retry >= limits.retries
          ? `retries=${limits.retries}`
          : `delivery.timeout.ms=${limits.deliveryTimeoutMs}`;
        throw new DeliveryTimeoutError(
          `Kafka unreachable for ${Math.round(elapsed / 1000)} s (${reason}): gave up after ${limit}`,
          { cause: error },
        );
      }
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, limits.retryBackoffMaxMs);
    }
  }
}

class AttemptTimeout extends Error {}

/** `promise`, or an AttemptTimeout once `ms` passed (the attempt itself goes on; its outcome is dropped). */
function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeout(`no answer within ${ms} ms`)), Math.max(0, ms));
  });
  promise.catch(() => {}); // a late rejection of an abandoned attempt is not unhandled
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `promise`, or a DeliveryTimeoutError once `ms` passed: for calls kafkajs retries itself and that cannot be
 * tried again from outside (a transaction's commit).
 */
export async function withinDeliveryTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  try {
    return await withinMs(promise, ms);
  } catch (error) {
    if (!(error instanceof AttemptTimeout)) throw error;
    throw new DeliveryTimeoutError(`Kafka did not answer within delivery.timeout.ms=${ms}`, { cause: error });
  }
}
