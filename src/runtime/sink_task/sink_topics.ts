/**
 * Which topics a sink task consumes: its `topics` that exist, or the existing topics its `topics.regex` matches
 * (internal topics excluded, as Java's pattern subscription does). kafkajs cannot subscribe to a topic that does
 * not exist yet, and resolves a pattern only once; the sink driver resolves the subscription itself, checks it
 * again every TOPIC_CHECK_INTERVAL_MS, and waits (a status warning) while something it names is missing.
 */
import type { Subscription } from "../../kafka/mod.ts";

/** How often a sink task looks for topics it waits for, or new topics its pattern matches. */
export const TOPIC_CHECK_INTERVAL_MS = 5000;

export interface ResolvedTopics {
  /** What to consume now, sorted. */
  readonly topics: string[];
  /** What the task waits for (a status warning), or null when nothing is missing. */
  readonly waiting: string | null;
}

export function resolveSinkTopics(subscription: Subscription, existing: readonly string[]): ResolvedTopics {
  const every = `(checked every ${TOPIC_CHECK_INTERVAL_MS / 1000} s)`;
  if ("pattern" in subscription) {
    const topics = existing.filter((t) => subscription.pattern.test(t)).sort();
    const source = subscription.pattern.source.replace(/^\^\(\?:(.*)\)\$$/, "$1");
    return {
      topics,
      waiting: topics.length > 0
        ? null
        : `waiting for a topic matching topics.regex ${source} to exist ${every}`,
    };
  }
  const present = new Set(existing);
  const topics = subscription.topics.filter((t) => present.has(t)).sort();
  const missing = subscription.topics.filter((t) => !present.has(t));
  const noun = missing.length === 1 ? "topic" : "topics";
  return {
    topics,
    waiting: missing.length === 0 ? null : `waiting for ${noun} ${missing.join(", ")} to exist ${every}`,
  };
}

export function sameTopics(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
