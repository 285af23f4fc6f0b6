/**
 * The source's settings, read once from the typed properties the runtime hands over (every property present,
 * defaults applied by src/config/defs/). Per-alias overrides of batch size and poll interval are resolved here so
 * that the rest of the source never looks at properties.
 */
import { ConfigError } from "../common/config_error.ts";
import { PropReader } from "../common/prop_reader.ts";
import type { TypedProps } from "../common/props.ts";
import { TABLE_PREFIX } from "../config/defs/table.ts";
import { POLL_BATCH_VALUES, TIME_BACKWARDS_POLICIES } from "../config/defs/source.ts";
import type { DisplayValue } from "../instance/mod.ts";

export type SchemaMode = "schemaless" | "strings" | "typed";
export type BadRowBehavior = "fail" | "skip";
export type SchemaEvolution = "fail" | "backward" | "permissive";
/** `svc.source.poll.batch`: whether idle polls share Batch API requests (read_coalescer.ts). */
export type PollBatch = typeof POLL_BATCH_VALUES[number];
export type TimeBackwardsPolicy = typeof TIME_BACKWARDS_POLICIES[number];

export interface TableSettings {
  /** The key of `svc.table.<alias>.*`; only names things in logs and messages. */
  readonly alias: string;
  /** Table or database view name: part of the source partition. */
  readonly table: string;
  readonly topic: string;
  readonly startTimestamp: string;
  readonly timestampField: string;
  readonly sysIdField: string;
  /** The update counter in the dedup version: `sys_mod_count` with the sys id field's prefix (modCountFieldOf). */
  readonly modCountField: string;
  /** Base encoded query (a plain filter). */
  readonly query: string;
  /** The configured projection; empty means every field. */
  readonly fields: readonly string[];
  readonly displayValue: DisplayValue;
  readonly excludeReferenceLink: boolean;
  readonly queryDomain: boolean;
  readonly queryCategory: string | null;
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  /** Seconds between background reconcile passes; 0 = off. */
  readonly reconcileIntervalSeconds: number;
  /** Sys id ranges a backfill without a committed offset is read in, concurrently (1: the cursor alone). */
  readonly backfillParallelism: number;
  /** `svc.table.<alias>.capture.deletes`: also read sys_audit for deletions (src/source/deletes/). */
  readonly captureDeletes: boolean;
  /**
   * `errors.retry.timeout`: how long the table retries the instance being away (unreachable, 5xx, a page that is
   * not JSON) before the task fails with TransientTaskFailure; 0 or -1 (or absent): until the instance answers.
   */
  readonly retryTimeoutMs?: number;
  /** `errors.retry.delay.max.ms`: the longest backoff between the table's retries (absent: 60 s). */
  readonly retryDelayMaxMs?: number;
}

export interface SourceSettings {
  readonly tables: readonly TableSettings[];
  /** `svc.source.poll.interval.max.ms`: the poll scheduler's ceiling (poll_scheduler.ts); absent = the floor. */
  readonly pollIntervalMaxMs?: number;
  readonly schemaMode: SchemaMode;
  /** `svc.source.typed.fields` entries, `field:type`. */
  readonly typedFields: readonly string[];
  readonly overlapSeconds: number;
  readonly pollBatch: PollBatch;
  readonly safetyLagSeconds: number;
  readonly dedupWindowRecords: number;
  readonly badRowBehavior: BadRowBehavior;
  /** `svc.source.time.backwards.policy` and `.seconds` (time_backwards.ts). */
  readonly timeBackwards: { readonly policy: TimeBackwardsPolicy; readonly seconds: number };
  readonly startupProbe: boolean;
  readonly schemaEvolution: SchemaEvolution;
  readonly emitEnvelope: boolean;
  /** The reconcile passes' state topic (reconcile/). */
  readonly reconcileStateTopic: string;
  /** `errors.tolerance=all`: skipped bad rows are also reported, so they reach the dead letter queue. */
  readonly toleranceAll: boolean;
}

/** A missing value or one of the wrong type (the props did not come from the definitions) is a `ConfigError`. */
function reader(props: TypedProps): PropReader {
  return new PropReader(props, (message) => new ConfigError(message));
}

const str = (props: TypedProps, key: string) => reader(props).string(key);
const optionalStr = (props: TypedProps, key: string) => reader(props).optionalString(key);
const num = (props: TypedProps, key: string) => reader(props).number(key);
const optionalNum = (props: TypedProps, key: string) => reader(props).optionalNumber(key);
const bool = (props: TypedProps, key: string) => reader(props).boolean(key);
const list = (props: TypedProps, key: string) => reader(props).list(key);
const oneOf = <T extends string>(props: TypedProps, key: string, allowed: readonly T[]) =>
  reader(props).oneOf(key, allowed);

/**
 * The mod-count column that goes with a sys id field: a database view prefixes every column of a joined table
 * (`inc_sys_id`, `inc_sys_updated_on`, `inc_sys_mod_count`), so the counter takes the sys id field's prefix;
 * `sys_id` (or a sys id field without that suffix) gives plain `sys_mod_count`.
 */
export function modCountFieldOf(sysIdField: string): string {
  const id = sysIdField.trim();
  return id.endsWith("sys_id") ? `${id.slice(0, -"sys_id".length)}sys_mod_count` : "sys_mod_count";
}

/** The aliases of `svc.tables`, in order. */
export function aliasesFromProps(props: TypedProps): string[] {
  return list(props, "svc.tables");
}

export function tableSettingsFromProps(props: TypedProps, alias: string): TableSettings {
  const k = (suffix: string) => `${TABLE_PREFIX}${alias}.${suffix}`;
  return {
    alias,
    table: str(props, k("name")),
    topic: str(props, k("topic")),
    startTimestamp: str(props, k("start.timestamp")),
    timestampField: str(props, k("timestamp.field")),
    sysIdField: str(props, k("sys.id.field")),
    modCountField: modCountFieldOf(str(props, k("sys.id.field"))),
    query: optionalStr(props, k("query")) ?? "",
    fields: list(props, k("fields")),
    displayValue: oneOf(props, k("display.value"), ["false", "true", "all"] as const),
    excludeReferenceLink: bool(props, k("exclude.reference.link")),
    queryDomain: bool(props, k("query.domain")),
    queryCategory: optionalStr(props, k("query.category")),
    batchSize: optionalNum(props, k("batch.size")) ?? num(props, "svc.source.batch.size"),
    pollIntervalMs: optionalNum(props, k("poll.interval.ms")) ?? num(props, "svc.source.poll.interval.ms"),
    reconcileIntervalSeconds: optionalNum(props, k("reconcile.interval.seconds")) ??
      num(props, "svc.source.reconcile.interval.seconds"),
    backfillParallelism: optionalNum(props, k("backfill.parallelism")) ??
      num(props, "svc.source.backfill.parallelism"),
    captureDeletes: bool(props, k("capture.deletes")),
    retryTimeoutMs: optionalNum(props, "errors.retry.timeout") ?? undefined,
    retryDelayMaxMs: optionalNum(props, "errors.retry.delay.max.ms") ?? undefined,
  };
}

export function sourceSettingsFromProps(props: TypedProps): SourceSettings {
  return {
    tables: aliasesFromProps(props).map((alias) => tableSettingsFromProps(props, alias)),
    pollIntervalMaxMs: num(props, "svc.source.poll.interval.max.ms"),
    schemaMode: oneOf(props, "svc.source.schema.mode", ["schemaless", "strings", "typed"] as const),
    typedFields: list(props, "svc.source.typed.fields"),
    overlapSeconds: num(props, "svc.source.overlap.seconds"),
    pollBatch: oneOf(props, "svc.source.poll.batch", POLL_BATCH_VALUES),
    safetyLagSeconds: num(props, "svc.source.safety.lag.seconds"),
    dedupWindowRecords: num(props, "svc.source.dedup.window.records"),
    badRowBehavior: oneOf(props, "svc.source.bad.row.behavior", ["fail", "skip"] as const),
    timeBackwards: {
      policy: oneOf(props, "svc.source.time.backwards.policy", TIME_BACKWARDS_POLICIES),
      seconds: num(props, "svc.source.time.backwards.seconds"),
    },
    startupProbe: bool(props, "svc.source.startup.probe"),
    schemaEvolution: oneOf(props, "svc.source.schema.evolution", ["fail", "backward", "permissive"] as const),
    emitEnvelope: bool(props, "svc.source.emit.envelope"),
    reconcileStateTopic: optionalStr(props, "svc.source.reconcile.state.topic") ??
      "tablesync-reconcile-state",
    toleranceAll: optionalStr(props, "errors.tolerance") === "all",
  };
}
