/**
 * Kafka Connect's framework keys, accepted with Connect's names, defaults and checks so that a config
 * moves between tablesync and a Connect cluster unchanged. Groups follow Connect's validate output.
 */
import { group, type PropertyDef } from "../def.ts";
import { nonEmpty, range, regex, topicNameList, topicNameOrBlank } from "../validators.ts";

const common = group("Common");
const transforms = group("Transforms");
const predicates = group("Predicates");
const errors = group("Error Handling");
const topicCreation = group("Topic Creation");
const exactlyOnce = group("Exactly Once Support");

export const COMMON_DEFS: readonly PropertyDef[] = [
  common("name", "STRING", "Globally unique name to use for this connector.", {
    importance: "HIGH",
    validator: nonEmpty,
  }),
  common(
    "connector.class",
    "STRING",
    "TableSourceConnector or TableSinkConnector (io.tablesync.* accepted).",
    {
      importance: "HIGH",
    },
  ),
  common("tasks.max", "INT", "Maximum number of tasks to use for this connector.", {
    default: "1",
    validator: range(1),
    importance: "HIGH",
  }),
  common("key.converter", "CLASS", "Converter class for keys. Overrides the worker's key.converter.", {
    default: null,
    importance: "LOW",
  }),
  common("value.converter", "CLASS", "Converter class for values. Overrides the worker's value.converter.", {
    default: null,
    importance: "LOW",
  }),
  common(
    "header.converter",
    "CLASS",
    "Converter class for headers. Overrides the worker's header.converter.",
    {
      default: null,
      importance: "LOW",
    },
  ),
  common(
    "config.action.reload",
    "STRING",
    "What to do when a config provider's value changes: restart or none.",
    {
      default: "restart",
      validValues: ["none", "restart"],
      importance: "LOW",
    },
  ),
];

export const TRANSFORM_DEFS: readonly PropertyDef[] = [
  transforms("transforms", "LIST", "Aliases of the transformations to apply to records, in order.", {
    default: "",
    importance: "LOW",
  }),
];

export const PREDICATE_DEFS: readonly PropertyDef[] = [
  predicates("predicates", "LIST", "Aliases of the predicates used by the transformations.", {
    default: "",
    importance: "LOW",
  }),
];

export const ERROR_DEFS: readonly PropertyDef[] = [
  errors(
    "errors.retry.timeout",
    "LONG",
    "Maximum time in ms a failed operation is retried. 0 means no retries; -1 means infinite. For the instance " +
      "being away (unreachable, 5xx, a page that is not JSON), a source table retries until it answers when this " +
      "is 0 or -1 (RUNNING, the outage shown in the task's status); a positive value bounds that time, after " +
      "which the task fails with one line naming the fault and the daemon restarts it by itself (5 s doubling " +
      "to 60 s).",
    {
      default: "0",
      validator: range(-1),
    },
  ),
  errors(
    "errors.retry.delay.max.ms",
    "LONG",
    "Maximum delay between consecutive retries of a failed operation (also the longest backoff of a source table " +
      "while the instance is away).",
    {
      default: "60000",
      validator: range(1),
    },
  ),
  errors(
    "errors.tolerance",
    "STRING",
    "none: any error fails the task; all: problematic records are skipped (and sent to the dead letter queue when one is set).",
    {
      default: "none",
      validValues: ["none", "all"],
    },
  ),
  errors("errors.log.enable", "BOOLEAN", "Log each error with its operation and record context.", {
    default: "false",
  }),
  errors(
    "errors.log.include.messages",
    "BOOLEAN",
    "Include the record (topic, partition, offset, timestamp) in error logs.",
    {
      default: "false",
    },
  ),
  errors(
    "errors.deadletterqueue.topic.name",
    "STRING",
    "Dead letter queue topic for records that failed conversion, transformation or writing. Blank disables it.",
    {
      default: "",
      validator: topicNameOrBlank,
    },
  ),
  errors(
    "errors.deadletterqueue.topic.replication.factor",
    "SHORT",
    "Replication factor when the dead letter queue topic is created.",
    {
      default: "3",
      validator: range(-1),
    },
  ),
  errors(
    "errors.deadletterqueue.context.headers.enable",
    "BOOLEAN",
    "Add __connect.errors.* headers with the error context to dead letter queue records.",
    {
      default: "false",
    },
  ),
];

/** Source-only framework keys. */
export const SOURCE_FRAMEWORK_DEFS: readonly PropertyDef[] = [
  topicCreation(
    "topic.creation.groups",
    "LIST",
    "Groups of topic creation settings, in matching order; 'default' is implicit.",
    {
      default: "",
      importance: "LOW",
    },
  ),
  exactlyOnce(
    "exactly.once.support",
    "STRING",
    "With the worker's exactly.once.source.support=enabled this source writes records and offsets in one Kafka transaction. 'required' refuses to run otherwise (validation fails when the worker does not enable it); 'requested' runs at least once on such a worker.",
    {
      default: "requested",
      validValues: ["requested", "required"],
      importance: "MEDIUM",
    },
  ),
  exactlyOnce(
    "transaction.boundary",
    "STRING",
    "Exactly-once only: when a transaction commits. 'poll': the records of each poll (and of the polls that piled up while the previous transaction committed); 'interval': every transaction.boundary.interval.ms; 'connector' (the connector defines boundaries) is refused: TableSourceConnector does not define them.",
    {
      default: "poll",
      validValues: ["poll", "interval", "connector"],
      importance: "MEDIUM",
    },
  ),
  exactlyOnce(
    "transaction.boundary.interval.ms",
    "LONG",
    "Exactly-once with transaction.boundary=interval: how long a transaction stays open. Unset: the worker's offset.flush.interval.ms.",
    {
      default: null,
      validator: range(1),
      importance: "LOW",
    },
  ),
  exactlyOnce(
    "offsets.storage.topic",
    "STRING",
    "Exactly-once only: this connector's own offsets topic (on the same cluster), read first and written in its transactions; offsets absent from it are read from the worker's offset.storage.topic. Unset: the worker's topic.",
    {
      default: null,
      importance: "LOW",
    },
  ),
];

/** Sink-only framework keys. */
export const SINK_FRAMEWORK_DEFS: readonly PropertyDef[] = [
  common("topics", "LIST", "Topics to consume. Exactly one of topics and topics.regex.", {
    default: "",
    validator: topicNameList,
    importance: "HIGH",
  }),
  common(
    "topics.regex",
    "STRING",
    "Regular expression of topics to consume. Exactly one of topics and topics.regex.",
    {
      default: "",
      validator: regex,
      importance: "HIGH",
    },
  ),
];

/** Prefixes whose keys are passed through unchanged to the part of the framework that owns them. */
export const PASS_THROUGH_PREFIXES = [
  "producer.override.",
  "consumer.override.",
  "admin.override.",
  "key.converter.",
  "value.converter.",
  "header.converter.",
  "transforms.",
  "predicates.",
  "topic.creation.",
] as const;
