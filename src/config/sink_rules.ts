/** Cross-field rules of the sink connector: topics, operations, field rules, the reporter and the DLQ. */
import { addError, type Analysis } from "./analyze.ts";
import { sinkTopicTableKey } from "./defs/sink.ts";
import { isSet, list, str } from "./rules.ts";

export function applySinkRules(a: Analysis): void {
  const topics = list(a, "topics");
  const topicsRegex = str(a, "topics.regex") ?? "";
  if (topics.length > 0 && topicsRegex !== "") {
    addError(a, "topics", "topics and topics.regex are mutually exclusive: set only one");
  } else if (topics.length === 0 && topicsRegex === "") {
    addError(a, "topics", "Must configure one of topics or topics.regex");
  }

  const routing = str(a, "svc.sink.routing.mode");
  if (routing === "fixed" && !isSet(a, "svc.sink.table")) {
    addError(a, "svc.sink.table", "svc.sink.table is required when svc.sink.routing.mode=fixed");
  }
  if (routing === "topic_map") {
    if (topicsRegex !== "") {
      addError(
        a,
        "svc.sink.routing.mode",
        "topic_map routing needs an explicit topics list (one svc.sink.topic.<topic>.table per topic), not topics.regex",
      );
    }
  }
  if (routing === "header" && list(a, "svc.sink.table.allowlist").length === 0) {
    addError(
      a,
      "svc.sink.table.allowlist",
      "svc.sink.table.allowlist is required when svc.sink.routing.mode=header: list the tables records may be written to",
    );
  }
  if (routing !== "topic_map") {
    for (const topic of topics) {
      const key = sinkTopicTableKey(topic);
      if (a.raw[key] !== undefined) {
        addError(a, key, `${key} is only used when svc.sink.routing.mode=topic_map`);
      }
    }
  }

  const operation = str(a, "svc.sink.operation.mode");
  if (operation === "fixed" && !isSet(a, "svc.sink.operation.fixed")) {
    addError(
      a,
      "svc.sink.operation.fixed",
      "svc.sink.operation.fixed is required when svc.sink.operation.mode=fixed",
    );
  }
  if (list(a, "svc.sink.field.allowlist").length > 0 && list(a, "svc.sink.field.denylist").length > 0) {
    addError(
      a,
      "svc.sink.field.allowlist",
      "svc.sink.field.allowlist and svc.sink.field.denylist are mutually exclusive: set only one",
    );
  }
  if (
    str(a, "svc.sink.create.ambiguous.behavior") === "correlation_lookup" &&
    !isSet(a, "svc.sink.correlation.field")
  ) {
    addError(
      a,
      "svc.sink.correlation.field",
      "svc.sink.correlation.field is required when svc.sink.create.ambiguous.behavior=correlation_lookup",
    );
  }
  const inFlight = a.values["svc.sink.max.in.flight"];
  const permits = a.values["svc.http.max.concurrent.requests"];
  if (typeof inFlight === "number" && typeof permits === "number" && inFlight > permits) {
    addError(
      a,
      "svc.sink.max.in.flight",
      `svc.sink.max.in.flight (${inFlight}) must not exceed svc.http.max.concurrent.requests (${permits})`,
    );
  }
  const reporterTopics = ["svc.sink.reporter.success.topic", "svc.sink.reporter.error.topic"].filter((k) =>
    isSet(a, k)
  );
  if (reporterTopics.length > 0 && list(a, "svc.sink.reporter.bootstrap.servers").length === 0) {
    addError(
      a,
      "svc.sink.reporter.bootstrap.servers",
      `svc.sink.reporter.bootstrap.servers is required when ${reporterTopics.join(" and ")} ${
        reporterTopics.length > 1 ? "are" : "is"
      } set`,
    );
  }
  const dlq = str(a, "errors.deadletterqueue.topic.name") ?? "";
  if (dlq !== "" && topics.includes(dlq)) {
    addError(
      a,
      "errors.deadletterqueue.topic.name",
      `The DLQ topic '${dlq}' may not be included in the list of topics ('topics=${
        topics.join(",")
      }') consumed by the connector (errors.deadletterqueue.topic.name)`,
    );
  }
}
