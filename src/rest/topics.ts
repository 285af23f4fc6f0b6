/**
 * KIP-558 active topics: `GET /connectors/<name>/topics` → `{"<name>":{"topics":[...]}}`, the topics the
 * connector's tasks produced to (source) or consumed from (sink) since it started on this worker or since the
 * last `PUT /connectors/<name>/topics/reset` (202). Topic tracking is always on, and resetting always allowed.
 */
import type { Herder } from "../runtime/herder.ts";
import type { Router } from "./router.ts";
import { json, noContent } from "./responses.ts";

export function topicRoutes(router: Router, herder: Herder): void {
  router.add("GET", "/connectors/:name/topics", (_r, p) => {
    return json({ [p.name]: { topics: herder.activeTopics(p.name) } });
  });
  router.add("PUT", "/connectors/:name/topics/reset", (_r, p) => {
    herder.resetActiveTopics(p.name);
    return noContent(202);
  });
}
