/**
 * A send the broker refuses for lack of access fails the task with one line naming the topics and the fix; any
 * other failure keeps the client's error as its cause. The errors are kafkajs's own classes, as its producer
 * throws them (a protocol error wrapped by its retrier).
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import KafkajsErrors from "kafkajs/src/errors.js";
import { kafkaErrorType } from "../../../src/kafka/mod.ts";
import { producingFailed } from "../../../src/runtime/source_task/source_topics.ts";

const refused = (): Error =>
  new KafkaJSProtocolError({
    type: "TOPIC_AUTHORIZATION_FAILED",
    code: 29,
    retriable: false,
    message: "Not authorized to access topics: [Topic authorization failed]",
  });

// deno-lint-ignore no-explicit-any
const { KafkaJSNonRetriableError, KafkaJSProtocolError } = KafkajsErrors as any;
/** What kafkajs's retrier throws on a non-retriable error. */
const NonRetriable = KafkaJSNonRetriableError as new (e: Error, o: { cause: Error }) => Error;
const bailed = (e: Error) => new NonRetriable(e, { cause: e });

Deno.test("kafkaErrorType finds the protocol error inside kafkajs's wrappers", () => {
  const direct = refused();
  assertEquals(kafkaErrorType(direct), "TOPIC_AUTHORIZATION_FAILED");
  const wrapped = bailed(direct);
  assertEquals(kafkaErrorType(wrapped), "TOPIC_AUTHORIZATION_FAILED");
  assertEquals(kafkaErrorType({ errors: [new Error("x"), direct] }), "TOPIC_AUTHORIZATION_FAILED");
  assertEquals(kafkaErrorType(new Error("plain")), null);
});

Deno.test("a refused send, or one to a deleted topic, is one line naming the topics; another failure keeps its cause", () => {
  const error = producingFailed(bailed(refused()), [
    "svc.incident",
    "svc.problem",
    "svc.incident",
  ]);
  // The status trace is the error's stack (task_thread.ts traceOf): here the sentence alone, no frames.
  assertEquals(error.stack, error.message);
  assertEquals(
    error.message,
    "not authorized to write to one of topics svc.incident, svc.problem (TOPIC_AUTHORIZATION_FAILED): grant this connector's principal Write access to it",
  );
  const deleted = producingFailed(
    bailed(
      new KafkaJSProtocolError({
        type: "UNKNOWN_TOPIC_OR_PARTITION",
        code: 3,
        retriable: true,
        message: "This server does not host this topic-partition",
      }),
    ),
    ["svc.incident", "svc.incident"],
  );
  assertEquals(deleted.stack, deleted.message);
  assertEquals(
    deleted.message,
    "topic svc.incident no longer exists (UNKNOWN_TOPIC_OR_PARTITION: deleted while the task wrote to it?): restart the task, which creates it again (topic.creation.*) or lets the broker do so (auto.create.topics.enable), or create it yourself",
  );
  const other = new Error("Broker closed the connection");
  const failed = producingFailed(other, ["svc.incident"]);
  assertStringIncludes(failed.message, "producing to Kafka failed: Broker closed the connection");
  assert(failed.cause === other);
});
