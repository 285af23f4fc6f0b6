/**
 * Test support for the source: typed props from a raw config (through the real config layer), a fake
 * SourceTaskContext (captured log lines, metrics, bad rows, in-memory offsets), a simulator with a login, and a
 * loop that drives a task's `poll()` until a condition holds.
 */
import pino from "pino";
import { analyzeConnector } from "../../src/config/connector_config.ts";
import type { RawConfig, TypedProps } from "../../src/common/props.ts";
import type { SourceOffset, SourcePartition, SourceRecord } from "../../src/connect/record.ts";
import type { SourceOffsetEntry, SourceTaskContext, TaskMetrics } from "../../src/connect/task_api.ts";
import type { TableProgress } from "../../src/connect/table_progress.ts";
import { type Simulator, type SimulatorOptions, startSimulator } from "../../src/sim/mod.ts";
import { TableSourceTask, type TableSourceTaskOptions } from "../../src/source/task.ts";
import { AssertionError } from "../support/assert.ts";

export const USER = "integration";
export const PASSWORD = "s3cret-pass";

export function startSim(options: SimulatorOptions = {}): Promise<Simulator> {
  return startSimulator({ users: [{ userName: USER, password: PASSWORD }], ...options });
}

/** A valid source config for one or more tables of the simulator; `extra` overrides or adds keys. */
export function sourceConfig(
  sim: Simulator,
  tables: Record<string, string>,
  extra: RawConfig = {},
): RawConfig {
  const raw: RawConfig = {
    name: "source-test",
    "connector.class": "io.tablesync.TableSourceConnector",
    "svc.url": sim.url,
    "svc.auth.username": USER,
    "svc.auth.password": PASSWORD,
    "svc.tables": Object.keys(tables).join(","),
    "svc.source.poll.interval.ms": "20",
    "svc.source.safety.lag.seconds": "0",
    "svc.retry.max.attempts": "1",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
  };
  for (const [alias, table] of Object.entries(tables)) {
    raw[`svc.table.${alias}.name`] = table;
    raw[`svc.table.${alias}.topic`] = `topic.${alias}`;
  }
  return { ...raw, ...extra };
}

/** Typed props through the config layer; fails the test when the config has errors. */
export function propsOf(raw: RawConfig): TypedProps {
  const analysis = analyzeConnector(raw, { worker: {} });
  if (analysis.errors.size > 0) {
    throw new AssertionError(`config errors: ${JSON.stringify([...analysis.errors])}`);
  }
  return analysis.values;
}

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

export interface BadRowReport {
  error: Error;
  topic: string;
  key?: string | null;
  value?: unknown;
}

/** A SourceTaskContext that records what the task reports. */
export class TestContext implements SourceTaskContext {
  readonly connectorName = "source-test";
  readonly taskId = 0;
  readonly lines: LogLine[] = [];
  readonly counters = new Map<string, number>();
  readonly badRows: BadRowReport[] = [];
  readonly offsets = new Map<string, SourceOffset>();
  #abort = new AbortController();
  readonly logger = pino({ level: "debug", base: undefined }, {
    write: (line: string) => {
      this.lines.push(JSON.parse(line));
    },
  });
  readonly metrics: TaskMetrics = {
    increment: (name, labels, by = 1) => {
      const key = metricKey(name, labels);
      this.counters.set(key, (this.counters.get(key) ?? 0) + by);
    },
    set: (name, labels, value) => {
      this.counters.set(metricKey(name, labels), value);
    },
  };

  /** `errors.tolerance=all`: reported bad rows resolve (the dead letter queue would take them). */
  constructor(readonly toleranceAll = false) {}

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  abort(): void {
    this.#abort.abort();
  }

  /** A new run with the same offsets (a restart): the old signal stays aborted, a new one is used. */
  renew(): this {
    this.#abort = new AbortController();
    return this;
  }

  offset(partition: SourcePartition): SourceOffset | null {
    return this.offsets.get(partitionKey(partition)) ?? null;
  }

  reportBadRow(
    error: Error,
    details: { topic: string; key?: string | null; value?: unknown },
  ): Promise<void> {
    this.badRows.push({ error, ...details });
    return this.toleranceAll
      ? Promise.resolve()
      : Promise.reject(new Error("tolerance exceeded in error handler"));
  }

  /**
   * What the runtime does after acks: stores the offset of the last record of each partition (a record without
   * one, as a re-snapshot's, stores nothing).
   */
  commit(records: readonly SourceRecord[]): void {
    for (const r of records) {
      if (r.sourcePartition && r.sourceOffset) {
        this.offsets.set(partitionKey(r.sourcePartition), r.sourceOffset);
      }
    }
  }

  counter(name: string, labels?: Record<string, string>): number {
    return this.counters.get(metricKey(name, labels)) ?? 0;
  }

  warnings(): LogLine[] {
    return this.lines.filter((l) =>
      l.level === "40" || l.level === "warn" || (l as { level: unknown }).level === 40
    );
  }
}

/** A TestContext that also keeps the table progress reports the task sends. */
export class ProgressContext extends TestContext {
  readonly reports: TableProgress[][] = [];
  reportProgress(tables: TableProgress[]): void {
    this.reports.push(tables);
  }
  latest(alias: string): TableProgress | undefined {
    return this.reports.at(-1)?.find((t) => t.alias === alias);
  }
}

function metricKey(name: string, labels?: Record<string, string>): string {
  if (!labels) return name;
  const parts = Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`);
  return `${name}{${parts.join(",")}}`;
}

/** Offsets are JSON maps; their key is the canonical JSON of the partition. */
export function partitionKey(partition: SourcePartition): string {
  return JSON.stringify(Object.fromEntries(Object.entries(partition).sort(([a], [b]) => a.localeCompare(b))));
}

export interface Driven {
  task: TableSourceTask;
  context: TestContext;
  records: SourceRecord[];
}

/** Starts a task on `raw` with `context` (fresh by default). */
export async function startTask(
  raw: RawConfig,
  context = new TestContext(),
  options: TableSourceTaskOptions = {},
): Promise<Driven> {
  const task = new TableSourceTask({ pollWaitMs: 100, ...options });
  await task.start(raw, propsOf(raw), context);
  return { task, context, records: [] };
}

/**
 * Polls until `done(records so far)` holds, committing every batch like the runtime would; throws when
 * `maxPolls` pass first. Returns the records collected by this call.
 */
export async function pollUntil(
  driven: Driven,
  done: (records: SourceRecord[]) => boolean,
  maxPolls = 400,
): Promise<SourceRecord[]> {
  const collected: SourceRecord[] = [];
  for (let i = 0; i < maxPolls; i++) {
    if (done(collected)) return collected;
    const batch = await driven.task.poll();
    driven.context.commit(batch);
    driven.records.push(...batch);
    collected.push(...batch);
  }
  if (done(collected)) return collected;
  throw new AssertionError(`condition not reached after ${maxPolls} polls (${collected.length} records)`);
}

/** Polls until `quietPolls` consecutive polls return nothing (each waits at most the task's poll wait). */
export async function pollUntilQuiet(
  driven: Driven,
  quietPolls = 3,
  maxPolls = 400,
): Promise<SourceRecord[]> {
  const collected: SourceRecord[] = [];
  let quiet = 0;
  for (let i = 0; i < maxPolls && quiet < quietPolls; i++) {
    const batch = await driven.task.poll();
    driven.context.commit(batch);
    driven.records.push(...batch);
    collected.push(...batch);
    quiet = batch.length === 0 ? quiet + 1 : 0;
  }
  if (quiet < quietPolls) throw new AssertionError(`still producing after ${maxPolls} polls`);
  return collected;
}

/**
 * Polls (committing) for `ms` while the simulator's writer inserts and updates rows of `table`, then, once the
 * writer stopped and the safety lag (up to 2 s) passed, until quiet.
 */
export async function pollWhileWriting(
  sim: Simulator,
  driven: Driven,
  writer: { table: string; rowsPerSecond: number; insertRatio: number; ms: number },
): Promise<void> {
  sim.writer.start({
    rowsPerSecond: writer.rowsPerSecond,
    table: writer.table,
    insertRatio: writer.insertRatio,
  });
  try {
    const until = Date.now() + writer.ms;
    while (Date.now() < until) {
      const batch = await driven.task.poll();
      driven.context.commit(batch);
      driven.records.push(...batch);
    }
  } finally {
    sim.writer.stop();
  }
  await new Promise((r) => setTimeout(r, 2500)); // past the safety lag
  await pollUntilQuiet(driven, 15);
}

/** The sys ids of `table` whose current version (sys_mod_count) is not among `records`. */
export function finalVersionsMissing(
  sim: Simulator,
  table: string,
  records: readonly SourceRecord[],
): string[] {
  const have = new Set(records.map((r) => `${r.key}/${(r.value as Record<string, string>).sys_mod_count}`));
  const t = sim.table(table);
  return t.sysIds().filter((id) => !have.has(`${id}/${t.get(id)!.sys_mod_count}`));
}

export async function stopTask(driven: Driven): Promise<void> {
  driven.context.abort();
  await driven.task.stop();
}

/**
 * Five incident rows one second apart (2024-07-01 10:00:00 to :04, sys_mod_count 0), `row(s)` to add one at
 * second `s`, and a config re-reading 2 s of overlap: the scene of the overlap and dedup tests.
 */
export function overlapScene(sim: Simulator): {
  row: (s: number, values?: Record<string, string>) => string;
  ids: string[];
  config: RawConfig;
} {
  const row = (s: number, values: Record<string, string> = {}) =>
    insertRow(sim, "incident", { sys_updated_on: `2024-07-01 10:00:0${s}`, sys_mod_count: "0", ...values });
  const ids = [0, 1, 2, 3, 4].map((s) => row(s));
  const config = sourceConfig(sim, { inc: "incident" }, {
    "svc.source.overlap.seconds": "2",
    "svc.table.inc.start.timestamp": "2024-07-01 00:00:00",
  });
  return { row, ids, config };
}

/** Inserts a row with the given sys_* values kept as given (no auto stamping). */
export function insertRow(sim: Simulator, table: string, values: Record<string, string>): string {
  const row = sim.table(table).insert(values, { suppressAutoSysFields: true });
  return row.sys_id;
}

/**
 * Polls like the at-least-once runtime: every record acknowledged (whenAcknowledged, then whenCommitted), the last
 * offset of each table committed.
 */
export async function pollAcked(
  driven: Driven,
  done: (r: SourceRecord[]) => boolean,
): Promise<SourceRecord[]> {
  const got = await pollUntil(driven, done);
  const quiet = await pollUntilQuiet(driven);
  for (const r of [...got, ...quiet]) {
    driven.task.whenAcknowledged(r)?.();
    driven.task.whenCommitted(r)?.();
  }
  return [...got, ...quiet];
}

/** What the driver does on a graceful stop: the task's final offsets replace the committed ones. */
export async function stopGracefully(driven: Driven): Promise<void> {
  const committed: SourceOffsetEntry[] = [];
  const last = new Map(driven.records.map((r) => [partitionKey(r.sourcePartition!), r.sourcePartition!]));
  for (const [key, partition] of last) {
    committed.push({ partition, offset: driven.context.offsets.get(key)! });
  }
  for (const { partition, offset } of driven.task.finalOffsets(committed)) {
    driven.context.offsets.set(partitionKey(partition), offset);
  }
  await stopTask(driven);
}

/**
 * Records that arrived after a newer version of their key (by `sys_updated_on`, then `sys_mod_count`), each as
 * "key: version after version": none when every key's versions arrive in order.
 */
export function versionsOutOfOrder(records: readonly SourceRecord[]): string[] {
  const last = new Map<string, [string, number]>();
  const wrong: string[] = [];
  for (const r of records) {
    const v = r.value as Record<string, string>;
    const now: [string, number] = [v.sys_updated_on, Number(v.sys_mod_count)];
    const before = last.get(r.key as string);
    if (before && (now[0] < before[0] || (now[0] === before[0] && now[1] < before[1]))) {
      wrong.push(`${r.key}: ${now} after ${before}`);
    }
    last.set(r.key as string, now);
  }
  return wrong;
}
