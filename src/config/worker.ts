/**
 * Worker (daemon-wide) settings, with Kafka Connect's worker key names where one exists.
 * Declared with the same PropertyDef machinery as connector properties.
 */
import { group, type PropertyDef } from "./def.ts";
import { nonEmpty, positiveOrBrokerDefault, range } from "./validators.ts";
import { LOG_FORMATS, LOG_LEVELS } from "../observability/log.ts";

const worker = group("Worker");
const kafka = group("Kafka");
const rest = group("REST");
const workerGroup = group("Worker group");

const STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";
export const JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";
const SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter";

export const WORKER_DEFS: readonly PropertyDef[] = [
  kafka("bootstrap.servers", "LIST", "Kafka brokers, host:port, comma-separated.", {
    default: "localhost:9092",
    importance: "HIGH",
  }),
  kafka("security.protocol", "STRING", "Protocol used to talk to brokers.", {
    default: "PLAINTEXT",
    validValues: ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"],
  }),
  kafka("sasl.mechanism", "STRING", "SASL mechanism for SASL_* protocols.", {
    default: "PLAIN",
    validValues: ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"],
  }),
  kafka(
    "sasl.jaas.config",
    "PASSWORD",
    "JAAS login module line with username and password (PlainLoginModule or ScramLoginModule).",
    {
      default: null,
    },
  ),
  kafka(
    "delivery.timeout.ms",
    "INT",
    "How long a record sent to Kafka is retried while Kafka is out of reach (a broker restarting, hung or cut off) before the task fails, as the Java producer's; the task shows the outage in its status meanwhile. Also producer.override.delivery.timeout.ms.",
    { default: "120000", validator: range(1) },
  ),
  kafka(
    "request.timeout.ms",
    "INT",
    "How long a Kafka request may go unanswered before it is retried (Java client key).",
    { default: "30000", validator: range(1) },
  ),
  kafka(
    "retry.backoff.ms",
    "LONG",
    "First wait before a failed Kafka request is retried (Java client key).",
    {
      default: "100",
      validator: range(0),
    },
  ),
  kafka(
    "retry.backoff.max.ms",
    "LONG",
    "Longest wait between retries of a failed Kafka request; the wait doubles from retry.backoff.ms up to it (Java client key).",
    { default: "1000", validator: range(1) },
  ),
  kafka(
    "topic.creation.enable",
    "BOOLEAN",
    "Whether source connectors may create their topics from topic.creation.* settings.",
    {
      default: "true",
    },
  ),
  worker(
    "offset.storage.file.filename",
    "STRING",
    "File holding source offsets (the default store), in Kafka Connect's key/value JSON.",
    {
      default: "data/offsets.json",
      validator: nonEmpty,
    },
  ),
  worker(
    "offset.storage.topic",
    "STRING",
    "Compacted topic holding source offsets in Kafka Connect's format; when set it replaces the file.",
    {
      default: null,
    },
  ),
  worker("offset.storage.partitions", "INT", "Partitions when the offsets topic is created.", {
    default: "25",
    validator: range(1),
  }),
  worker(
    "offset.storage.replication.factor",
    "SHORT",
    "Replication factor when the offsets topic is created.",
    {
      default: "3",
      validator: range(-1),
    },
  ),
  worker(
    "exactly.once.source.support",
    "STRING",
    "Exactly-once source delivery (KIP-618): 'enabled' makes source tasks write their records and offsets in one Kafka transaction per transaction.boundary, with a transactional id per task that fences the task's previous owner; 'preparing' (a rolling-upgrade step) and 'disabled' keep tasks at least once. Needs offset.storage.topic; see docs/exactly-once.md.",
    {
      default: "disabled",
      validValues: ["disabled", "preparing", "enabled"],
    },
  ),
  worker(
    "offset.flush.interval.ms",
    "LONG",
    "Longest time acknowledged source offsets wait before they are written.",
    {
      default: "1000",
      validator: range(0),
    },
  ),
  worker(
    "offset.flush.timeout.ms",
    "LONG",
    "Longest time an offset write may take before it is abandoned and retried.",
    {
      default: "5000",
      validator: range(1),
    },
  ),
  worker(
    "config.storage.file.filename",
    "STRING",
    "File where connector configs and states changed over the REST API are kept across restarts (standalone; a worker group keeps them in config.storage.topic).",
    {
      default: "data/connectors.json",
      validator: nonEmpty,
    },
  ),
  worker(
    "task.shutdown.graceful.timeout.ms",
    "LONG",
    "Time tasks get on shutdown to finish in-flight work, flush and commit.",
    {
      default: "5000",
      validator: range(0),
    },
  ),
  worker(
    "log.level",
    "STRING",
    "Log level at start: the root logger's, which every logger without its own follows; PUT /admin/loggers/<name> changes levels at runtime.",
    { default: "info", validValues: LOG_LEVELS },
  ),
  worker(
    "log.format",
    "STRING",
    "Log line format: json (one JSON object per line) or text (`<time> <LEVEL> [connector=x task=0] message key=value ...`).",
    { default: "json", validValues: LOG_FORMATS },
  ),
  worker("key.converter", "CLASS", "Default key converter of connectors.", { default: STRING_CONVERTER }),
  worker(
    "value.converter",
    "CLASS",
    "Default value converter of connectors. The default JsonConverter has schemas.enable=false, fitting the default schemaless source mode.",
    {
      default: JSON_CONVERTER,
    },
  ),
  worker("header.converter", "CLASS", "Default header converter of connectors.", {
    default: SIMPLE_HEADER_CONVERTER,
  }),
  workerGroup(
    "group.id",
    "STRING",
    "Worker group (Kafka Connect's distributed mode): daemons with the same group.id share every connector's tasks through Kafka's group coordinator and take over a member's tasks when it leaves or dies. Unset: this daemon runs every connector alone (standalone). Requires offset.storage.topic, config.storage.topic and status.storage.topic; see docs/scaling.md.",
    { default: null, importance: "HIGH" },
  ),
  workerGroup(
    "config.storage.topic",
    "STRING",
    "Group mode: compacted single-partition topic holding connector configs and target states (Kafka Connect's format); the config file's connectors seed it. Created at start when missing.",
    { default: null },
  ),
  workerGroup(
    "config.storage.replication.factor",
    "SHORT",
    "Group mode: replication factor when the config topic is created; -1 = the broker's default.",
    { default: "-1", validator: positiveOrBrokerDefault },
  ),
  workerGroup(
    "status.storage.topic",
    "STRING",
    "Group mode: compacted topic holding connector and task statuses with the worker_id of the member running each (Kafka Connect's format). Created at start when missing.",
    { default: null },
  ),
  workerGroup(
    "status.storage.partitions",
    "INT",
    "Group mode: partitions when the status topic is created; -1 = the broker's default.",
    { default: "5", validator: positiveOrBrokerDefault },
  ),
  workerGroup(
    "status.storage.replication.factor",
    "SHORT",
    "Group mode: replication factor when the status topic is created; -1 = the broker's default.",
    { default: "-1", validator: positiveOrBrokerDefault },
  ),
  workerGroup(
    "heartbeat.interval.ms",
    "INT",
    "Group mode: expected time between heartbeats to the group coordinator; below a third of session.timeout.ms.",
    { default: "3000", validator: range(1) },
  ),
  workerGroup(
    "session.timeout.ms",
    "INT",
    "Group mode: a member that sends no heartbeat for this long leaves the group; its tasks move to the others, and it stops them on its own.",
    { default: "10000", validator: range(1) },
  ),
  workerGroup(
    "rebalance.timeout.ms",
    "INT",
    "Group mode: longest time a member may take to stop its revoked tasks (flush, commit) and rejoin during a rebalance.",
    { default: "60000", validator: range(1) },
  ),
  rest("listeners", "LIST", "REST API listener URLs (http:// or https://).", {
    default: "http://127.0.0.1:8083",
  }),
  rest(
    "rest.auth.token",
    "PASSWORD",
    "When set, every REST request must carry 'Authorization: Bearer <token>' (use ${env:NAME} or ${file:PATH:KEY}).",
    {
      default: null,
    },
  ),
  rest(
    "rest.request.max.bytes",
    "INT",
    "Largest REST request body accepted, in bytes; a larger one is refused with 413 without being read (a Content-Length above it before any byte). The default 1 MiB fits configs of hundreds of tables and matches Kafka's default record size limit, which a config must fit in a worker group's config topic. At least 1 KiB: below that no connector config fits.",
    { default: "1048576", validator: range(1024) },
  ),
  rest(
    "topic.tracking.enable",
    "BOOLEAN",
    "Kafka Connect's KIP-558 switch: whether GET /connectors/<name>/topics answers with the connector's active topics; false: 403 'Topic tracking is disabled.' there and on the reset.",
    { default: "true" },
  ),
  rest(
    "topic.tracking.allow.reset",
    "BOOLEAN",
    "Whether PUT /connectors/<name>/topics/reset may empty a connector's active topics (while it runs too, as in Kafka Connect); false: 403 'Topic tracking reset is disabled.'.",
    { default: "true" },
  ),
  rest(
    "listeners.https.ssl.certificate.location",
    "STRING",
    "PEM certificate (chain) for an https:// listener.",
    {
      default: null,
    },
  ),
  rest("listeners.https.ssl.key.location", "STRING", "PEM private key for an https:// listener.", {
    default: null,
  }),
];

/**
 * The worker group's own keys: they configure the daemon's group membership, never a task's Kafka clients (a
 * sink task's consumer takes `consumer.session.timeout.ms` etc., as in Connect).
 */
export const WORKER_GROUP_KEYS = [
  "group.id",
  "config.storage.topic",
  "status.storage.topic",
  "config.storage.replication.factor",
  "status.storage.partitions",
  "status.storage.replication.factor",
  "heartbeat.interval.ms",
  "session.timeout.ms",
  "rebalance.timeout.ms",
] as const;

/** Worker keys passed on to the Kafka clients or converters unchanged. */
export const WORKER_PASS_THROUGH_PREFIXES = [
  "producer.",
  "consumer.",
  "admin.",
  "ssl.",
  "sasl.",
  "key.converter.",
  "value.converter.",
  "header.converter.",
] as const;

/**
 * Converter settings implied by our worker defaults: when the user keeps the default JsonConverter for
 * values, it runs schemaless (schemas.enable=false), matching the default schemaless source mode.
 */
export function impliedWorkerSettings(raw: Record<string, string>): Record<string, string> {
  const implied: Record<string, string> = {};
  if (raw["value.converter"] === undefined && raw["value.converter.schemas.enable"] === undefined) {
    implied["value.converter.schemas.enable"] = "false";
  }
  return implied;
}
