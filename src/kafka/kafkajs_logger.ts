/**
 * Routes kafkajs's own log entries into our pino logger (component "kafka").
 *
 * Level mapping: kafkajs logs at ERROR many conditions it then retries (a broker restart, a leader move), and the
 * caller sees the final failure as a rejected promise that it reports itself; so kafkajs ERROR becomes warn.
 * WARN → warn. kafkajs INFO is lifecycle chatter ("Starting", "Stopped", each join) that the daemon reports in its
 * own words, so it becomes debug; kafkajs DEBUG (every request) becomes trace. Lines pass through the redaction layer like every other log line.
 *
 * Some warnings are lowered to debug: "Limiting retries for the idempotent producer may invalidate EoS guarantees",
 * logged for every transactional producer (it warns of resending after retries ran out; an exactly-once task
 * never does that: a failed transaction fails the task, which starts over with a new producer), and the
 * CONCURRENT_TRANSACTIONS answers kafkajs retries after every commit, and answers given while a leader or
 * coordinator is being elected, which kafkajs retries (below).
 *
 * Faults of reaching the cluster (a connection refused, closed or timed out, a request unanswered, a consumer
 * restarting after them) are debug lines too: they come once per attempt, each with a stack, for as long as a
 * broker is away. The client's KafkaOutage says it once instead (outage.ts), and once more when it is back.
 */
import { type logCreator as KafkajsLogCreator, logLevel as KafkajsLogLevel } from "kafkajs";
import { type Logger, logger } from "../observability/log.ts";
import { type KafkaOutage, reasonInText, SOCKET_ERRORS } from "./outage.ts";

const PINO_LEVEL_BY_KAFKAJS_LEVEL: Record<number, "warn" | "debug" | "trace"> = {
  [KafkajsLogLevel.ERROR]: "warn",
  [KafkajsLogLevel.WARN]: "warn",
  [KafkajsLogLevel.INFO]: "debug",
  [KafkajsLogLevel.DEBUG]: "trace",
};

const LOWERED_TO_DEBUG = /^Limiting retries for the idempotent producer/;
/**
 * CONCURRENT_TRANSACTIONS: after every commit the coordinator answers the next transaction's first request so
 * until the commit's markers are written, and kafkajs retries it; a warning per transaction would flood the log.
 */
const EXPECTED_RETRY = /another concurrent operation on the same transaction was ongoing/;
/**
 * A request answered while a partition's leader or a group's coordinator is still being elected (the first
 * seconds after a topic is created or a broker starts or resumes) is retried by kafkajs; each answer was a
 * warning at every demo's start ("This server is not the leader for that topic-partition"), and the producer's
 * "Failed to send messages: …" retry after a paused broker resumed one more; so is NOT_ENOUGH_REPLICAS while the
 * in-sync replicas come back after a resume (two lines per retry, six for one send), and a consumer's crash
 * because its group coordinator was not found yet (a line with kafkajs's stack; the consumer's owner reports the
 * crash: a reader's read fails, a sink task fails). A retry that runs out still fails its caller, which reports it.
 */
const ELECTION_IN_PROGRESS =
  /(This server is not the leader for that topic-partition|There is no leader for this topic-partition|The group coordinator is not available|The coordinator is loading|Messages are rejected since there are fewer in-sync replicas than required|Failed to find group coordinator)/;
/**
 * "Response without match": the answer to a request that had already timed out (and was retried, or failed its
 * caller) arriving late, after a broker that stopped answering resumes. The outage was reported when it began.
 */
const LATE_RESPONSE = /^Response without match/;

/** An entry about a fault of reaching the cluster (see the module comment); socket errors are matched too. */
const UNREACHABLE =
  /Connection error|Connection timeout|Closed connection|Connection closed|[Rr]equest .*timed out|Failed to connect to seed broker|Broker not connected|Not connected/;
/**
 * kafkajs's note that a consumer restarts after a crash: the crash entry before it carries the cause and is
 * judged on its own (an outage, an election, or an error worth a warning), so the note is debug. Counting the
 * note as an outage made a coordinator that was still loading read as "Kafka unreachable".
 */
const CONSUMER_RESTART = /^Restarting the consumer/;

/**
 * A kafkajs `logCreator` writing to `target` (defaults to logger("kafka")); faults of reaching the cluster go to
 * `outage` when given.
 */
export function kafkajsLogCreator(target: Logger = logger("kafka"), outage?: KafkaOutage): KafkajsLogCreator {
  return () => ({ namespace, level, log }) => {
    const pinoLevel = PINO_LEVEL_BY_KAFKAJS_LEVEL[level];
    if (!pinoLevel) return;
    const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
    const text = String(message);
    const withError = `${text} ${fields.error ?? ""}`;
    if (outage && (UNREACHABLE.test(withError) || SOCKET_ERRORS.test(withError))) {
      const reason = reasonInText(withError) ?? withError.replace(/\s+/g, " ").trim().slice(0, 200);
      outage.unreachable(typeof fields.broker === "string" ? fields.broker : undefined, reason);
      target.debug({ kafkajs: namespace, ...fields }, text);
      return;
    }
    if (
      LOWERED_TO_DEBUG.test(text) || CONSUMER_RESTART.test(text) || LATE_RESPONSE.test(text) ||
      EXPECTED_RETRY.test(withError) || ELECTION_IN_PROGRESS.test(withError)
    ) {
      target.debug({ kafkajs: namespace, ...fields }, text);
      return;
    }
    target[pinoLevel]({ kafkajs: namespace, ...fields }, text);
  };
}

/** The kafkajs level to ask for, so that kafkajs does not build debug entries pino would drop anyway. */
export function kafkajsLogLevelFor(target: Logger): KafkajsLogLevel {
  if (target.isLevelEnabled("trace")) return KafkajsLogLevel.DEBUG;
  return target.isLevelEnabled("debug") ? KafkajsLogLevel.INFO : KafkajsLogLevel.WARN;
}
