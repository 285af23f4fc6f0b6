/**
 * Topic names Kafka cannot hold are refused when a config is validated: a sink's `topics` would otherwise wait for
 * a topic that can never exist, and a source's topic would fail its task with the broker's INVALID_TOPIC_EXCEPTION.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { topicNameProblem } from "../../src/common/topic_name.ts";
import { analyzeConnector } from "../../src/config/connector_config.ts";

Deno.test("Kafka's topic name rule: 1 to 249 of a-z A-Z 0-9 . _ -, not . or ..", () => {
  for (const ok of ["svc.incident", "a", "A-b_c.9", "x".repeat(249), "..."]) {
    assertEquals(topicNameProblem(ok), undefined, ok);
  }
  assertEquals(topicNameProblem(""), "is empty");
  assertEquals(topicNameProblem("."), `cannot be "." or ".."`);
  assertEquals(topicNameProblem(".."), `cannot be "." or ".."`);
  assertEquals(topicNameProblem("x".repeat(250)), "is 250 characters long, more than Kafka's 249");
  for (const bad of ["has space", "a/b", "ä", "a\nb", "t:1"]) {
    assertEquals(topicNameProblem(bad), "may hold only ASCII letters, digits, '.', '_' and '-'", bad);
  }
});

const base = { "svc.url": "https://dev1.example.com", "svc.auth.username": "u", "svc.auth.password": "p" };

function errorsOf(config: Record<string, string>): Map<string, string[]> {
  return analyzeConnector({ name: "c", ...base, ...config }, { worker: {} }).errors;
}

Deno.test("a source's svc.table.<alias>.topic must be a topic name", () => {
  const source = (topic: string) =>
    errorsOf({
      "connector.class": "TableSourceConnector",
      "svc.tables": "incident",
      "svc.table.incident.name": "incident",
      "svc.table.incident.topic": topic,
    });
  assertEquals(source("svc.incident").get("svc.table.incident.topic"), undefined);
  assertEquals(source("svc incident").get("svc.table.incident.topic"), [
    "Invalid value svc incident for configuration svc.table.incident.topic: not a valid topic name: it may hold only ASCII letters, digits, '.', '_' and '-'",
  ]);
});

Deno.test("every entry of a sink's topics must be a topic name; each bad one is named", () => {
  const sink = (topics: string) =>
    errorsOf({ "connector.class": "TableSinkConnector", topics, "svc.sink.table": "incident" });
  assertEquals(sink("orders.in,orders-2").get("topics"), undefined);
  const errors = sink(`orders.in,has space,..,${"y".repeat(300)}`).get("topics") ?? [];
  assertEquals(errors.length, 1);
  assertStringIncludes(errors[0], "'has space' is not a valid topic name: it may hold only");
  assertStringIncludes(errors[0], `'..' is not a valid topic name: it cannot be "." or ".."`);
  assertStringIncludes(errors[0], "is 300 characters long, more than Kafka's 249");
});

Deno.test("the dead letter queue and reporter topics must be topic names (blank: none)", () => {
  const sink = (extra: Record<string, string>) =>
    errorsOf({
      "connector.class": "TableSinkConnector",
      topics: "in",
      "svc.sink.table": "incident",
      ...extra,
    });
  const keys = [
    "errors.deadletterqueue.topic.name",
    "svc.sink.reporter.success.topic",
    "svc.sink.reporter.error.topic",
  ];
  const good = sink({
    "errors.deadletterqueue.topic.name": "dlq.in",
    "svc.sink.reporter.success.topic": "ok.in",
    "svc.sink.reporter.error.topic": "",
  });
  for (const key of keys) assertEquals(good.get(key), undefined, key);
  // The task would create the dead letter queue topic at start and fail with a hint about permissions.
  const bad = sink(Object.fromEntries(keys.map((key) => [key, "dead letters"])));
  for (const key of keys) {
    assertEquals(bad.get(key), [
      `Invalid value dead letters for configuration ${key}: not a valid topic name: it may hold only ASCII letters, digits, '.', '_' and '-'`,
    ]);
  }
});
