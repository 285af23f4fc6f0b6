/**
 * Kafka's rule for topic names (org.apache.kafka.common.internals.Topic.validate): 1 to 249 characters of ASCII
 * letters, digits, '.', '_' and '-', and not "." or "..". A name outside it can never exist: a sink would wait
 * for it for ever and the broker answers a source with INVALID_TOPIC_EXCEPTION, so it is refused up front.
 */
export const MAX_TOPIC_NAME_LENGTH = 249;
export const TOPIC_NAME_PATTERN = /^[a-zA-Z0-9._-]+$/;

/** Why `name` cannot be a topic's name, or undefined when it can. */
export function topicNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name === "." || name === "..") return `cannot be "." or ".."`;
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    return `is ${name.length} characters long, more than Kafka's ${MAX_TOPIC_NAME_LENGTH}`;
  }
  if (!TOPIC_NAME_PATTERN.test(name)) {
    return "may hold only ASCII letters, digits, '.', '_' and '-'";
  }
  return undefined;
}
