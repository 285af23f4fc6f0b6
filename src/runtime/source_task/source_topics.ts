/**
 * A source task's topics before their first record. A name Kafka does not allow fails the task at once. With
 * `topic.creation.*` (and the worker's `topic.creation.enable`) a missing topic is created through the Admin
 * API with its group's settings (topic_creation.ts). Without it the task does what a producer does: it asks
 * for the topic's metadata with auto-creation allowed, so the broker's own `auto.create.topics.enable`
 * decides. Only when the broker refuses (UNKNOWN_TOPIC_OR_PARTITION for MISSING_FOR_MS, or
 * TOPIC_AUTHORIZATION_FAILED) does the task fail, with one line naming the topic and the fix. A send the
 * broker refuses later (no Write access, or the topic deleted meanwhile) says so likewise.
 */
import type { Admin } from "../../kafka/mod.ts";
import { kafkaErrorType, TopicCreationUnsupportedError } from "../../kafka/mod.ts";
import type { Logger } from "../../observability/log.ts";
import { sleepEndingOnAbort } from "../../common/delay.ts";
import { redact } from "../../observability/redact.ts";
import { topicNameProblem } from "../../common/topic_name.ts";
import { topicCreationFor } from "./topic_creation.ts";
import { plainTaskError } from "../task/task_failure.ts";

/** How long the broker may answer UNKNOWN_TOPIC_OR_PARTITION before the topic counts as refused. */
const MISSING_FOR_MS = 10_000;
/** How long a topic the broker is creating (LEADER_NOT_AVAILABLE) may take to serve. */
const PENDING_FOR_MS = 60_000;
const ASK_EVERY_MS = 500;

const CREATION_KEYS = "topic.creation.default.partitions and topic.creation.default.replication.factor";

export interface SourceTopicSettings {
  admin: Admin;
  /** The connector config (its `topic.creation.*` groups). */
  config: Record<string, string>;
  /** `topic.creation.*` present and the worker's `topic.creation.enable` not false. */
  creationWanted: boolean;
  log: Logger;
  signal: AbortSignal;
}

/** Makes sure `topic` exists (or throws a one-line error saying why not and what to do). */
export async function ensureSourceTopic(topic: string, s: SourceTopicSettings): Promise<void> {
  // The config's topics are checked when it is validated; a transform (RegexRouter, ...) may still route here.
  const problem = topicNameProblem(topic);
  if (problem) {
    throw plainTaskError(
      `'${topic}' is not a valid topic name: it ${problem}; check svc.table.<alias>.topic and the transforms that route records`,
    );
  }
  if (await s.admin.topicExists(topic)) return;
  if (s.creationWanted) await createTopic(topic, s);
  else await awaitBrokerCreation(topic, s);
}

async function createTopic(topic: string, s: SourceTopicSettings): Promise<void> {
  const settings = topicCreationFor(s.config, topic);
  try {
    await s.admin.createTopic(topic, settings);
    s.log.info({ topic, group: settings.group }, `created topic ${topic}`);
  } catch (e) {
    if (!(e instanceof TopicCreationUnsupportedError)) throw e;
    throw plainTaskError(
      `topic ${topic} does not exist and this cluster cannot create it through the API (${e.reason}): create it yourself`,
    );
  }
}

/** Asks for the topic as a producer does, until the broker created it or clearly will not. */
async function awaitBrokerCreation(topic: string, s: SourceTopicSettings): Promise<void> {
  const started = Date.now();
  let missingSince: number | null = null;
  for (;;) {
    const answer = await s.admin.requestTopic(topic);
    const now = Date.now();
    if (answer === "available") {
      s.log.info({ topic }, `topic ${topic} is available (the broker created it: auto.create.topics.enable)`);
      return;
    }
    if (answer === "unauthorized") {
      throw plainTaskError(
        `not authorized to access topic ${topic} (TOPIC_AUTHORIZATION_FAILED): grant this connector's principal access to it, or create it and grant access`,
      );
    }
    missingSince = answer === "missing" ? missingSince ?? now : null;
    if (missingSince !== null && now - missingSince >= MISSING_FOR_MS) {
      throw plainTaskError(
        `topic ${topic} does not exist and the broker did not create it (UNKNOWN_TOPIC_OR_PARTITION for ${
          MISSING_FOR_MS / 1000
        } s): create the topic, enable auto.create.topics.enable on the broker, or set ${CREATION_KEYS} so the connector creates it`,
      );
    }
    if (now - started >= PENDING_FOR_MS) {
      throw plainTaskError(`topic ${topic} was not ready after ${PENDING_FOR_MS / 1000} s: check the broker`);
    }
    await sleepEndingOnAbort(ASK_EVERY_MS, s.signal);
    s.signal.throwIfAborted();
  }
}

/**
 * The task's error for a send that cannot succeed: one line naming the topics when the broker refused them or
 * no longer has them (deleted while the task wrote to it: a restart makes sure it exists again, as at start).
 */
export function producingFailed(error: Error, topics: string[]): Error {
  const distinct = [...new Set(topics)];
  const named = distinct.length === 1 ? `topic ${distinct[0]}` : `one of topics ${distinct.join(", ")}`;
  if (error.name === "DeliveryTimeoutError") {
    // Its message names the fault and the limit; the cause tells the daemon to restart the task.
    const failed = plainTaskError(`producing to Kafka failed: ${redact(error.message)}`);
    return Object.assign(failed, { cause: error });
  }
  switch (kafkaErrorType(error)) {
    case "TOPIC_AUTHORIZATION_FAILED":
      return plainTaskError(
        `not authorized to write to ${named} (TOPIC_AUTHORIZATION_FAILED): grant this connector's principal Write access to it`,
      );
    case "UNKNOWN_TOPIC_OR_PARTITION":
      return plainTaskError(
        `${named} no longer exists (UNKNOWN_TOPIC_OR_PARTITION: deleted while the task wrote to it?): restart the task, which creates it again (topic.creation.*) or lets the broker do so (auto.create.topics.enable), or create it yourself`,
      );
    default:
      return new Error(`producing to Kafka failed: ${redact(error.message)}`, { cause: error });
  }
}
