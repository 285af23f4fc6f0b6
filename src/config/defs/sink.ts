/** Sink connector properties. Names the spec leaves open follow the sink issue's choices. */
import { group, type PropertyDef } from "../def.ts";
import { identifier, identifierList, nonEmpty, pairList, range, topicNameOrBlank } from "../validators.ts";

const sink = group("Sink");
const fields = group("Sink Fields");
const reporter = group("Sink Reporter");

export const SINK_TOPIC_PREFIX = "svc.sink.topic.";
export const REPORTER_PRODUCER_PREFIX = "svc.sink.reporter.producer.";

export const SINK_DEFS: readonly PropertyDef[] = [
  sink(
    "svc.sink.routing.mode",
    "STRING",
    "How the target table is chosen: fixed (svc.sink.table), topic_map (svc.sink.topic.<topic>.table), header (the header named by svc.sink.table.header, restricted to svc.sink.table.allowlist).",
    {
      default: "fixed",
      validValues: ["fixed", "topic_map", "header"],
      importance: "HIGH",
    },
  ),
  sink("svc.sink.table", "STRING", "Target table for fixed routing.", {
    default: null,
    validator: identifier,
    importance: "HIGH",
  }),
  sink("svc.sink.table.header", "STRING", "Header naming the target table for header routing.", {
    default: "svc.table",
    validator: nonEmpty,
  }),
  sink(
    "svc.sink.table.allowlist",
    "LIST",
    "Tables header routing may write to. Required for header routing.",
    {
      default: "",
      validator: identifierList,
    },
  ),
  sink(
    "svc.sink.operation.mode",
    "STRING",
    "key_value: a key addresses the row by sys id, no key creates, a null value deletes; header: the operation comes from svc.sink.operation.header (CREATE, UPDATE, UPSERT, DELETE); fixed: svc.sink.operation.fixed.",
    {
      default: "key_value",
      validValues: ["key_value", "header", "fixed"],
      importance: "HIGH",
    },
  ),
  sink(
    "svc.sink.operation.header",
    "STRING",
    "Header carrying the operation in header mode. A field of this name is stripped from the body.",
    {
      default: "svc.operation",
      validator: nonEmpty,
    },
  ),
  sink("svc.sink.operation.fixed", "STRING", "The operation in fixed mode.", {
    default: null,
    validValues: ["create", "update", "upsert", "delete"],
  }),
  sink(
    "svc.sink.not.found.behavior",
    "STRING",
    "An update or delete that gets 404: fail (a record error), ignore, or create (updates only).",
    {
      default: "fail",
      validValues: ["fail", "ignore", "create"],
    },
  ),
  sink(
    "svc.sink.update.method",
    "STRING",
    "HTTP method for updates. The effect of PUT on fields left out of the body depends on the instance.",
    {
      default: "PATCH",
      validValues: ["PATCH", "PUT"],
    },
  ),
  sink(
    "svc.sink.sys.id.key.field",
    "STRING",
    "Field of a Struct or Map key holding the row's sys id. A String key is the sys id itself.",
    {
      default: "sys_id",
      validator: nonEmpty,
    },
  ),
  sink(
    "svc.sink.create.ambiguous.behavior",
    "STRING",
    "A create whose outcome is unknown (sent, no answer): fail_ambiguous (record error), retry (send again), correlation_lookup (look the row up by svc.sink.correlation.field before and after).",
    {
      default: "fail_ambiguous",
      validValues: ["fail_ambiguous", "retry", "correlation_lookup"],
    },
  ),
  sink(
    "svc.sink.correlation.field",
    "STRING",
    "Field that identifies a record across retries for correlation_lookup.",
    {
      default: null,
      validator: identifier,
    },
  ),
  sink(
    "svc.sink.max.in.flight",
    "INT",
    "Writes in flight per task; at most svc.http.max.concurrent.requests. Records of one key are always written in order.",
    {
      default: "8",
      validator: range(1),
    },
  ),
  sink(
    "svc.sink.batch.enabled",
    "BOOLEAN",
    "Write through the instance's Batch API (POST /api/now/v1/batch): many records per round trip, each with its own outcome, retries and reports; records of one key still in order. Needs the Batch API to be permitted for the integration user.",
    {
      default: "false",
    },
  ),
  sink(
    "svc.sink.batch.max.records",
    "INT",
    "Records per Batch API request when svc.sink.batch.enabled=true. Up to svc.sink.max.in.flight batches are in flight; the instance serves a batch's items one after another within its 30 s quota, and returns the rest as unserviced (they are sent again).",
    {
      default: "50",
      validator: range(1, 1000),
    },
  ),
  sink(
    "behavior.on.api.errors",
    "STRING",
    "A permanent record error after reporting and the dead letter queue: fail the task, log and skip, or ignore. Unset: follows errors.tolerance (all: log, none: fail).",
    {
      default: null,
      validValues: ["fail", "log", "ignore"],
    },
  ),

  fields("svc.sink.field.rename", "LIST", "Renames applied first, as from:to pairs.", {
    default: "",
    validator: pairList,
  }),
  fields(
    "svc.sink.field.allowlist",
    "LIST",
    "Only these fields are written (after renames). Not together with the denylist.",
    {
      default: "",
    },
  ),
  fields(
    "svc.sink.field.denylist",
    "LIST",
    "These fields are never written (after renames). Not together with the allowlist.",
    {
      default: "",
    },
  ),
  fields(
    "svc.sink.null.behavior",
    "STRING",
    "A null field: omit it (PATCH leaves the field untouched), clear it (empty string), or reject the record.",
    {
      default: "omit",
      validValues: ["omit", "clear", "reject"],
    },
  ),
  fields(
    "svc.sink.nested.behavior",
    "STRING",
    "A Struct, Map or array field: reject (record error naming the full path), flatten (join keys with the delimiter), or stringify (JSON string).",
    {
      default: "reject",
      validValues: ["reject", "flatten", "stringify"],
    },
  ),
  fields(
    "svc.sink.nested.flatten.delimiter",
    "STRING",
    "Delimiter for flatten: location.city becomes location_city.",
    {
      default: "_",
      validator: nonEmpty,
    },
  ),
  fields(
    "svc.sink.unknown.field.behavior",
    "STRING",
    "A field absent from the target table's dictionary (including inherited tables): fail (record error), drop (reported, the rest written), passthrough (sent as is).",
    {
      default: "fail",
      validValues: ["fail", "drop", "passthrough"],
    },
  ),
  fields(
    "svc.sink.verify.writes",
    "BOOLEAN",
    "Verified writes: a create or update asks back the fields it sent and compares them (after the instance's normalisation); a field that did not take (write ACL, read-only field, a business rule) is a not_written record error.",
    { default: "true" },
  ),
  fields(
    "svc.sink.verify.rewritten.fields",
    "LIST",
    "Fields business rules legitimately rewrite: asked back and compared, a difference counted (tablesync_sink_fields_rewritten_total), not an error.",
    { default: "", validator: identifierList },
  ),
  fields(
    "svc.sink.verify.ignore.fields",
    "LIST",
    "Fields never asked back nor compared by verified writes (journal and password fields are skipped anyway).",
    { default: "", validator: identifierList },
  ),

  reporter(
    "svc.sink.reporter.bootstrap.servers",
    "LIST",
    "Brokers for the reporter producer. Required when a reporter topic is set.",
    {
      default: "",
    },
  ),
  reporter(
    "svc.sink.reporter.success.topic",
    "STRING",
    "Topic for success reports. Must exist; the sink never creates it.",
    {
      default: null,
      validator: topicNameOrBlank,
    },
  ),
  reporter(
    "svc.sink.reporter.error.topic",
    "STRING",
    "Topic for error reports. Must exist; the sink never creates it.",
    {
      default: null,
      validator: topicNameOrBlank,
    },
  ),
];

/** The dynamic topic_map key for one topic. */
export function sinkTopicTableKey(topic: string): string {
  return `${SINK_TOPIC_PREFIX}${topic}.table`;
}

export function sinkTopicTableDef(topic: string): PropertyDef {
  return group("Sink")(
    sinkTopicTableKey(topic),
    "STRING",
    `Target table for records of topic ${topic} (topic_map routing).`,
    {
      validator: identifier,
      importance: "HIGH",
    },
  );
}
