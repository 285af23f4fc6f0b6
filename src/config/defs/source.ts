/** Source connector properties, framework level (per-table properties are in table.ts). */
import { group, type PropertyDef } from "../def.ts";
import { identifierList, range, topicName } from "../validators.ts";

const source = group("Source");

const SCHEMA_MODES = ["schemaless", "strings", "typed"] as const;
/** `svc.source.poll.batch` values (read by src/source/settings.ts). */
export const POLL_BATCH_VALUES = ["auto", "true", "false"] as const;
/** `svc.source.time.backwards.policy` values (read by src/source/settings.ts). */
export const TIME_BACKWARDS_POLICIES = ["warn", "reconcile", "restart"] as const;

export const SOURCE_DEFS: readonly PropertyDef[] = [
  source(
    "svc.tables",
    "LIST",
    "One alias per table or database view to poll. Each alias is configured with svc.table.<alias>.* properties.",
    {
      importance: "HIGH",
      validator: identifierList,
    },
  ),
  source(
    "svc.source.schema.mode",
    "STRING",
    "Value shape: schemaless (Map, the row as returned), strings (Struct of optional strings that only grows), typed (experimental; typed by svc.source.typed.fields).",
    {
      default: "schemaless",
      validValues: SCHEMA_MODES,
      importance: "HIGH",
    },
  ),
  source(
    "svc.source.poll.interval.ms",
    "INT",
    "Wait after a sweep that ended on a short page. Per-alias override: svc.table.<alias>.poll.interval.ms.",
    {
      default: "5000",
      validator: range(1),
    },
  ),
  source(
    "svc.source.poll.batch",
    "STRING",
    "Idle polls of the task's tables share Batch API requests (POST /api/now/v1/batch): window queries of caught-up tables that come due within a few milliseconds travel as items of one request (at most 50), and idle polls are aligned to ticks of the poll interval so that they do. auto: when the task polls at least 2 tables and the host has no request budget (a rate-limit rule, or svc.http.requests.per.hour: the instance counts every item against it, so batching saves none of it); if the instance refuses the Batch API, the task warns and goes on with single requests. true: as auto, with any number of tables, and a refused Batch API fails the task. false: one request per poll. Backfill and catch-up pages are never batched.",
    {
      default: "auto",
      validValues: POLL_BATCH_VALUES,
    },
  ),
  source(
    "svc.source.poll.interval.max.ms",
    "INT",
    "Longest wait of an idle table between polls when the instance's request budget (a rate-limit rule, or svc.http.requests.per.hour) cannot poll every table at its poll interval: each table's interval then moves between its poll interval and this by how often its rows change, so the requests go to the tables that change, and a change in any table reaches its topic within about this long: it is a deadline counted from where the table's last sweep stopped reading, less the delay requests lately waited for the budget (the default, 90 s, keeps a change inside two minutes). A value at or below the poll interval keeps every table at its poll interval.",
    {
      default: "90000",
      validator: range(1),
    },
  ),
  source(
    "svc.source.batch.size",
    "INT",
    "Rows per request (sysparm_limit). Per-alias override: svc.table.<alias>.batch.size.",
    {
      default: "5000",
      validator: range(1, 50000),
    },
  ),
  source(
    "svc.source.backfill.parallelism",
    "INT",
    "Ranges of sys ids a table's catch-up (backfill) is split into and read concurrently, within svc.http.max.concurrent.requests; the single cursor takes over once every range reached the backfill's high-water mark. 1 reads the backfill with the cursor, as streaming does. Only a table without a committed offset starts a parallel backfill. Per-alias override: svc.table.<alias>.backfill.parallelism.",
    {
      default: "1",
      validator: range(1, 64),
    },
  ),
  source(
    "svc.source.typed.fields",
    "LIST",
    "typed mode: comma-separated field:type entries. Types: string, int8, int16, int32, int64, float32, float64, boolean, bytes, timestamp, date, time, decimal, decimal(scale).",
    {
      default: "",
    },
  ),
  source(
    "svc.source.overlap.seconds",
    "INT",
    "Seconds re-read before the committed cursor at the start of every streaming sweep and on restart.",
    {
      default: "2",
      validator: range(0),
    },
  ),
  source(
    "svc.source.safety.lag.seconds",
    "INT",
    "Subtracted from the instance clock to bound each sweep, so the second still being written is not closed early.",
    {
      default: "1",
      validator: range(0),
    },
  ),
  source(
    "svc.source.dedup.window.records",
    "INT",
    "Per-table bound of the cache of emitted (timestamp, sys_id, sys_mod_count) versions that suppresses re-reads.",
    {
      default: "50000",
      validator: range(1),
    },
  ),
  source(
    "svc.source.time.backwards.policy",
    "STRING",
    "What a table does when the instance went back in time: its newest row is more than svc.source.time.backwards.seconds older than the table's cursor, or the instance clock jumped back that far (a clone over the instance or a restore from backup, most likely). Each logs a warning naming the likely cause and shows it as the table's warning in GET /connectors/<name>/tables. warn: nothing more. reconcile: the table is read again from its start timestamp, every row sent at the version the instance has now, so its topic ends as the table is (a full re-read). restart: the table's cursor restarts at the instance's present, so changes made after the rollback are read even when their timestamps are below the old cursor; rows the rollback changed keep their topic's newer versions.",
    {
      default: "reconcile",
      validValues: TIME_BACKWARDS_POLICIES,
    },
  ),
  source(
    "svc.source.time.backwards.seconds",
    "INT",
    "How far back the instance must go for svc.source.time.backwards.policy to act: its newest row this much older than a table's cursor, or its clock this much behind the last reading.",
    {
      default: "600",
      validator: range(1),
    },
  ),
  source(
    "svc.source.bad.row.behavior",
    "STRING",
    "A row whose sys id or timestamp is missing or unparseable: fail the task naming the row, or skip it (logged and counted).",
    {
      default: "fail",
      validValues: ["fail", "skip"],
    },
  ),
  source(
    "svc.source.startup.probe",
    "BOOLEAN",
    "On task start read one row per table to verify access and the cursor fields; warn when the integration user's time zone is not UTC.",
    {
      default: "true",
    },
  ),
  source(
    "svc.source.schema.evolution",
    "STRING",
    "typed mode, a value that does not match its declared type: fail (bad row), backward (emitted as null, schema unchanged, warned once per table and field), permissive (field re-declared optional STRING in a new schema version, raw value emitted).",
    {
      default: "fail",
      validValues: ["fail", "backward", "permissive"],
    },
  ),
  source(
    "svc.source.reconcile.interval.seconds",
    "INT",
    "Seconds between background reconcile passes of each table (a walk of the table in sys_id order that re-sends silently changed and missing rows and tombstones rows gone; docs/reconcile.md). The default, a day, checks each table once a day; 0 = off (no state topic, no state entry written per record).",
    {
      default: "86400",
      validator: range(0),
    },
  ),
  source(
    "svc.source.reconcile.state.topic",
    "STRING",
    "Compacted topic of the reconcile passes' comparison state (16 partitions, created on first use): per row its version and a digest of what was sent.",
    {
      default: "tablesync-reconcile-state",
      validator: topicName,
    },
  ),
  source(
    "svc.source.emit.envelope",
    "BOOLEAN",
    "Wrap every value as {before: null, after, source: {table, instance}, op: 'u', ts_ms}.",
    {
      default: "false",
    },
  ),
];
