/**
 * Routes kafkajs's own log entries into our pino logger (component "kafka").
 *
 * Level mapping: kafkajs logs at ERROR many conditions it then retries (a broker restart, a leader move), and the
 * caller sees the final failure as a rejected promise that it reports itself; so kafkajs ERROR becomes warn.
 * WARN → warn. kafkajs INFO is lifecycle chatter ("Starting", "Stopped", each join) that the daemon reports in its
 * own words, so it becomes debug; kafkajs DEBUG (every request) becomes trace. Lines pass through the redaction layer like every other log line.
 *
 * Two warnings are lowered to debug: "Limiting retries for the idempotent producer may invalidate EoS guarantees",
 * logged for every transactional producer (it warns of resending after retries ran out; an exactly-once task
 * never does that: a failed transaction fails the task, which starts over with a new producer), and the
 * CONCURRENT_TRANSACTIONS answers kafkajs retries after every commit (below).
 */
import { type logCreator as KafkajsLogCreator, logLevel as KafkajsLogLevel } from "kafkajs";
import { type Logger, logger } from "../observability/log.ts";

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

/** A kafkajs `logCreator` writing to `target` (defaults to logger("kafka")). */
export function kafkajsLogCreator(target: Logger = logger("kafka")): KafkajsLogCreator {
  return () => ({ namespace, level, log }) => {
    const pinoLevel = PINO_LEVEL_BY_KAFKAJS_LEVEL[level];
    if (!pinoLevel) return;
    const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
    const text = String(message);
    if (LOWERED_TO_DEBUG.test(text) || EXPECTED_RETRY.test(`${text} ${fields.error ?? ""}`)) {
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
