/**
 * KIP-558 active topics: `GET /connectors/<name>/topics` → `{"<name>":{"topics":[...]}}`, the topics the
 * connector's tasks produced to (source) or consumed from (sink) since it started on this worker or since the
 * last `PUT /connectors/<name>/topics/reset` (202). As in Kafka Connect, a reset is allowed whatever the
 * connector's state (a running connector's topics show again on their next use); the worker keys
 * `topic.tracking.enable` and `topic.tracking.allow.reset` turn the endpoints off with Connect's 403s.
 */
import type { Herder } from "../runtime/herder.ts";
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";
import type { Router } from "./router.ts";
import { json, noContent } from "./responses.ts";

/** `topic.tracking.enable` and `topic.tracking.allow.reset`. */
export interface TopicTracking {
  enabled: boolean;
  allowReset: boolean;
}

export function topicRoutes(
  router: Router,
  herder: Herder,
  tracking: TopicTracking = { enabled: true, allowReset: true },
): void {
  const checkEnabled = () => {
    if (!tracking.enabled) throw new ConnectRestError(403, "Topic tracking is disabled.");
  };
  router.add("GET", "/connectors/:name/topics", (_r, p) => {
    checkEnabled();
    return json({ [p.name]: { topics: herder.activeTopics(p.name) } });
  });
  router.add("PUT", "/connectors/:name/topics/reset", (_r, p) => {
    checkEnabled();
    if (!tracking.allowReset) throw new ConnectRestError(403, "Topic tracking reset is disabled.");
    herder.resetActiveTopics(p.name);
    return noContent(202);
  });
}
