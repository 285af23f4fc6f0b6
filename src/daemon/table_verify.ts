/**
 * `tablesync verify`'s comparison: is a source table's topic complete? The topic is read to its end (the latest
 * value per key, a null value a deletion) with the connector's own converters, then the table is read in sys_id
 * order (keyset pages, independent of any cursor) and each row compared with the topic's latest value of its key:
 *
 * - missing: the row is not in the topic, or its latest value is a tombstone;
 * - stale: the topic's latest value differs from the row in sys_updated_on, sys_mod_count or any field both hold
 *   (a silent update shows here: same timestamp, other content);
 * - extra: a key whose latest value is a row the table no longer holds (a deletion that sent no tombstone).
 *
 * Nothing is written: no record, no offset, no consumer group commit. Memory grows with the topic's keys (the
 * latest value of each is kept while the table is read).
 */
import { analyzeWorker, workerStrings } from "../config/worker_config.ts";
import { analyzeConnector } from "../config/connector_config.ts";
import { errorLines } from "../config/analyze.ts";
import { ConfigError } from "../common/config_error.ts";
import { createTaskConverters, loadTaskConverterPlugins } from "../connect/converters/factory.ts";
import { Struct } from "../connect/struct.ts";
import { EncodedQuery, instanceSettingsFromProps, TableClient, type TableRow } from "../instance/mod.ts";
import { createKafka, kafkaOptionsFromProperties, readTopicToEnd, stripPrefix } from "../kafka/mod.ts";
import type { KafkaClient } from "../kafka/mod.ts";
import { logger } from "../observability/log.ts";
import { sourceSettingsFromProps, type TableSettings } from "../source/settings.ts";
import { SysIdScan } from "../source/sys_id_scan.ts";

const log = logger("verify");

/** What one table's comparison found. */
export interface TableVerdict {
  readonly connector: string;
  readonly alias: string;
  readonly table: string;
  readonly topic: string;
  /** Rows the table holds (readable by the integration user, under the table's query). */
  readonly instanceRows: number;
  /** Keys whose latest value in the topic is a row (not a tombstone). */
  readonly topicRows: number;
  readonly missing: readonly string[];
  readonly stale: readonly string[];
  readonly extra: readonly string[];
}

export interface VerifyOptions {
  /** Only this alias. */
  readonly table?: string;
  /** How long reading a topic to its end may take. Default 120 s. */
  readonly readTimeoutMs?: number;
}

type Latest = Map<string, Record<string, unknown> | null>;

/** Compares every table (or one) of a source connector with its topic. */
export async function verifyConnector(
  name: string,
  connectorConfig: Record<string, string>,
  workerConfig: Record<string, unknown>,
  options: VerifyOptions = {},
): Promise<TableVerdict[]> {
  const workerAnalysis = analyzeWorker(workerConfig as Record<string, string>);
  const worker = workerStrings(workerAnalysis);
  const analysis = analyzeConnector(connectorConfig, { worker });
  const problems = [...errorLines(workerAnalysis), ...errorLines(analysis)];
  if (problems.length > 0) throw new ConfigError(`connector ${name} is invalid:\n${problems.join("\n")}`);
  if (analysis.type !== "source") throw new ConfigError(`connector ${name} is not a source connector`);
  const settings = sourceSettingsFromProps(analysis.values);
  const tables = settings.tables.filter((t) => options.table === undefined || t.alias === options.table);
  if (tables.length === 0) {
    throw new ConfigError(`connector ${name} has no table alias ${options.table} (svc.tables)`);
  }
  const config = analysis.raw;
  await loadTaskConverterPlugins(config, worker);
  const converters = createTaskConverters(config, worker);
  const kafkaOptions = await kafkaOptionsFromProperties({
    ...worker,
    ...stripPrefix(worker, "consumer."),
    ...stripPrefix(config, "consumer.override."),
  });
  const kafka = createKafka(kafkaOptions.connection, { log, onConsumerCrash: () => {} });
  const client = await TableClient.create(instanceSettingsFromProps(analysis.values));
  try {
    const verdicts: TableVerdict[] = [];
    for (const t of tables) {
      const latest = await readTopic(kafka, t.topic, (topic, key, value) => ({
        key: keyText(converters.keyConverter.toConnectData(topic, key, []).value),
        value: value === null ? null : rowOf(converters.valueConverter.toConnectData(topic, value, []).value),
      }), options.readTimeoutMs ?? 120_000);
      verdicts.push(await compareTable(name, t, client, latest));
    }
    return verdicts;
  } finally {
    client.close();
  }
}

function keyText(key: unknown): string {
  if (key instanceof Struct) return String(key.get("sys_id") ?? key.toString());
  if (key !== null && typeof key === "object" && "sys_id" in key) {
    return String((key as { sys_id: unknown }).sys_id);
  }
  return String(key);
}

/** A record's value as field → value: the row, or an envelope's `after` (null for a deletion). */
function rowOf(value: unknown): Record<string, unknown> | null {
  const plain = value instanceof Struct ? structToObject(value) : value instanceof Map
    ? Object.fromEntries(
      [...value].map(([k, v]) => [String(k), v instanceof Map ? Object.fromEntries(v) : v]),
    )
    : value;
  if (plain === null || typeof plain !== "object") return null;
  const row = plain as Record<string, unknown>;
  if ("op" in row && "after" in row) return rowOf(row.after);
  return row;
}

function structToObject(s: Struct): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of s.schema.fields()) {
    const v = s.get(f.name);
    out[f.name] = v instanceof Struct ? structToObject(v) : v;
  }
  return out;
}

/** The latest value of every key of `topic`, read from its start to the end it had when reading began. */
async function readTopic(
  kafka: KafkaClient,
  topic: string,
  decode: (topic: string, key: Uint8Array | null, value: Uint8Array | null) => {
    key: string;
    value: Record<string, unknown> | null;
  },
  timeoutMs: number,
): Promise<Latest> {
  const latest: Latest = new Map();
  await readTopicToEnd(kafka, topic, (k, v) => {
    const { key, value } = decode(topic, k, v);
    latest.set(key, value);
  }, { groupPrefix: "tablesync-verify", timeoutMs });
  return latest;
}

/** Reads the table in sys_id order and sorts its rows against the topic's latest values. */
async function compareTable(connector: string, t: TableSettings, client: TableClient, latest: Latest) {
  const missing: string[] = [], stale: string[] = [];
  let instanceRows = 0;
  const seen = new Set<string>();
  // Pages that access control cut short do not end the read (sys_id_scan.ts).
  const scan = new SysIdScan(t.sysIdField, null, null);
  const base = EncodedQuery.parse(t.query);
  const fields = t.fields.length > 0
    ? [...new Set([...t.fields, t.sysIdField, t.timestampField])]
    : undefined;
  for (let ended = false; !ended;) {
    const next = scan.next(t.batchSize);
    const page = await client.list(t.table, {
      query: base.and(...next.terms).orderBy(t.sysIdField).toString(),
      limit: t.batchSize,
      fields,
      queryNoDomain: !t.queryDomain,
      count: next.count,
    });
    let last: string | null = null;
    for (const row of page.rows) {
      const id = String(row[t.sysIdField]);
      instanceRows++;
      seen.add(id);
      const got = latest.get(id);
      if (got === undefined || got === null) missing.push(id);
      else if (differs(row, got)) stale.push(id);
      last = id;
    }
    ended = scan.take({ rows: page.rows.length, last, total: page.total }, t.batchSize);
  }
  const extra = [...latest].filter(([id, v]) => v !== null && !seen.has(id)).map(([id]) => id);
  const topicRows = [...latest.values()].filter((v) => v !== null).length;
  return {
    connector,
    alias: t.alias,
    table: t.table,
    topic: t.topic,
    instanceRows,
    topicRows,
    missing,
    stale,
    extra,
  };
}

/** True when a field both hold has another value (compared as text; objects as JSON). */
function differs(row: TableRow, emitted: Record<string, unknown>): boolean {
  let compared = 0;
  for (const [field, value] of Object.entries(row)) {
    if (!(field in emitted)) continue;
    compared++;
    if (text(value) !== text(emitted[field])) return true;
  }
  // A value that shares no field with the row (renamed by a transform, another shape) cannot be equal to it.
  return compared === 0;
}

function text(v: unknown): string {
  return v !== null && typeof v === "object" ? JSON.stringify(v) : String(v ?? "");
}
