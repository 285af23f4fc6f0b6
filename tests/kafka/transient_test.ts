import { assert } from "../support/assert.ts";
import { isTransient } from "../../src/kafka/outage.ts";
import { ProducerFencedError, TransactionTimedOutError } from "../../src/kafka/errors.ts";

/** A broker answer as kafkajs reports it (KafkaJSProtocolError carries the protocol error type). */
function answer(type: string, retriable: boolean): Error {
  return Object.assign(new Error(`answer ${type}`), { name: "KafkaJSProtocolError", type, retriable });
}

/** As the source driver wraps a failed commit. */
const failedTransaction = (cause: unknown) => new Error("transaction of tablesync-c-0 failed", { cause });

Deno.test("transient Kafka faults: a commit answered CONCURRENT_TRANSACTIONS restarts the task", () => {
  assert(isTransient(failedTransaction(answer("CONCURRENT_TRANSACTIONS", true))));
});

Deno.test("transient Kafka faults: a coordinator away or loading, a timed-out transaction restart the task", () => {
  assert(isTransient(failedTransaction(answer("COORDINATOR_LOAD_IN_PROGRESS", true))));
  assert(isTransient(failedTransaction(answer("NOT_COORDINATOR", true))));
  assert(isTransient(failedTransaction(new TransactionTimedOutError("tablesync-c-0", 61_000, 60_000))));
});

Deno.test("transient Kafka faults: a fenced producer, an authorization or a retriable answer about the request itself stay failed", () => {
  const fenced = new ProducerFencedError("tablesync-c-0", "INVALID_PRODUCER_EPOCH", {
    cause: answer("INVALID_PRODUCER_EPOCH", false),
  });
  assert(!isTransient(failedTransaction(fenced)));
  assert(!isTransient(failedTransaction(answer("TRANSACTIONAL_ID_AUTHORIZATION_FAILED", false))));
  // kafkajs marks a missing topic retriable; after the client's retries it is a configuration fault, not an outage.
  assert(!isTransient(failedTransaction(answer("UNKNOWN_TOPIC_OR_PARTITION", true))));
});
