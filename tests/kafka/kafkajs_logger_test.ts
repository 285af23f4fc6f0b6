/**
 * kafkajs's log entries in our log: retried answers during a leader or coordinator election are debug, not warn;
 * a broker out of reach is one line when the outage begins and one when it ends, not a stack per reconnect.
 */
import { assertEquals } from "../support/assert.ts";
import { logLevel } from "kafkajs";
import { kafkajsLogCreator } from "../../src/kafka/kafkajs_logger.ts";
import { KafkaOutage } from "../../src/kafka/outage.ts";
import { logger, setLogLevel, setLogSink } from "../../src/observability/log.ts";

Deno.test("answers kafkajs retries while a leader or coordinator is elected are debug; other errors stay warn", () => {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  setLogLevel("debug");
  try {
    const log = kafkajsLogCreator(logger("kafka"))(logLevel.WARN);
    const entry = (message: string, error: string) => ({
      namespace: "Connection",
      level: logLevel.ERROR,
      label: "ERROR",
      log: { timestamp: "t", logger: "kafkajs", message, error, broker: "127.0.0.1:9092" },
    });
    log(
      entry(
        "Response ListOffsets(key: 2, version: 3)",
        "This server is not the leader for that topic-partition",
      ),
    );
    log(entry("Response GroupCoordinator(key: 10, version: 2)", "The group coordinator is not available"));
    log(
      entry(
        "Response Metadata(key: 3, version: 6)",
        "There is no leader for this topic-partition as we are in the middle of a leadership election",
      ),
    );
    // After a paused broker resumes: the producer's retry, and the late answer to a request that timed out.
    log(entry("Failed to send messages: This server is not the leader for that topic-partition", ""));
    log(entry("Response without match", ""));
    log(
      entry(
        "Response Produce(key: 0, version: 7)",
        "Messages are rejected since there are fewer in-sync replicas than required",
      ),
    );
    // A consumer whose group coordinator was not found yet after a resume (its owner reports the crash).
    log(entry("Crash: KafkaJSGroupCoordinatorNotFound: Failed to find group coordinator", ""));
    log(entry("Response CreateTopics(key: 19, version: 3)", "Topic authorization failed"));
    assertEquals(lines.map((l) => [JSON.parse(l).level, JSON.parse(l).msg]), [
      ["debug", "Response ListOffsets(key: 2, version: 3)"],
      ["debug", "Response GroupCoordinator(key: 10, version: 2)"],
      ["debug", "Response Metadata(key: 3, version: 6)"],
      ["debug", "Failed to send messages: This server is not the leader for that topic-partition"],
      ["debug", "Response without match"],
      ["debug", "Response Produce(key: 0, version: 7)"],
      ["debug", "Crash: KafkaJSGroupCoordinatorNotFound: Failed to find group coordinator"],
      ["warn", "Response CreateTopics(key: 19, version: 3)"],
    ]);
  } finally {
    setLogLevel("info");
    setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
  }
});

Deno.test("a broker out of reach: one warn line for the outage, the reconnect failures debug, one line when back", () => {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  setLogLevel("debug");
  try {
    const outage = new KafkaOutage(logger("kafka"), "delivery.timeout.ms=120000");
    const log = kafkajsLogCreator(logger("kafka"), outage)(logLevel.WARN);
    for (let retry = 0; retry < 5; retry++) {
      log({
        namespace: "Connection",
        level: logLevel.ERROR,
        label: "ERROR",
        log: {
          timestamp: "t",
          logger: "kafkajs",
          message: "Connection error: connect ECONNREFUSED 127.0.0.1:9092",
          broker: "127.0.0.1:9092",
          stack: "Error: connect ECONNREFUSED\n    at x (y.ts:1:2)",
        },
      });
    }
    outage.reachable();
    const entries = lines.map((l) => JSON.parse(l));
    const loud = entries.filter((e) => e.level !== "debug").map((e) => [e.level, e.msg]);
    assertEquals(loud, [
      [
        "warn",
        "Kafka unreachable at 127.0.0.1:9092: ECONNREFUSED; retrying (delivery.timeout.ms=120000)",
      ],
      ["info", loud[1]?.[1]],
    ]);
    assertEquals(/^Kafka reachable again after [\d.]+ s$/.test(String(loud[1][1])), true, String(loud[1][1]));
    assertEquals(entries.filter((e) => e.level === "debug").length, 5);
  } finally {
    setLogLevel("info");
    setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
  }
});

Deno.test("a consumer restart note is debug and no outage; retries run out on a refused connection are one", () => {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  setLogLevel("debug");
  try {
    const outage = new KafkaOutage(logger("kafka"), "delivery.timeout.ms=120000");
    const log = kafkajsLogCreator(logger("kafka"), outage)(logLevel.WARN);
    const entry = (namespace: string, message: string, error?: string) =>
      log({
        namespace,
        level: logLevel.ERROR,
        label: "ERROR",
        log: { timestamp: "t", logger: "kafkajs", message, ...(error ? { error } : {}), groupId: "g" },
      });
    // A group coordinator still loading makes a consumer restart: an election, not Kafka out of reach.
    entry("Consumer", "Restarting the consumer in 300ms");
    assertEquals(lines.map((l) => JSON.parse(l).level), ["debug"]);
    entry(
      "Consumer",
      "Crash: KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED 127.0.0.1:9092",
      "Connection error: connect ECONNREFUSED 127.0.0.1:9092",
    );
    const loud = lines.map((l) => JSON.parse(l)).filter((e) => e.level !== "debug");
    assertEquals(loud.map((e) => e.msg), [
      "Kafka unreachable: ECONNREFUSED; retrying (delivery.timeout.ms=120000)",
    ]);
  } finally {
    setLogLevel("info");
    setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
  }
});
