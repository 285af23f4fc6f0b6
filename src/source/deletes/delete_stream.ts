/**
 * Deletion capture of one table (`svc.table.<alias>.capture.deletes=true`): a second poller over the table's
 * audit rows (audit_stream.ts), built from the same parts as the table's own poller (keyset cursor, overlap, dedup,
 * paging) with the audit rows turned into tombstones and re-emitted rows (delete_records.ts), and the horizon that
 * keeps the table's rows behind the deletions read (delete_horizon.ts).
 *
 * A graceful stop hands the stream's acknowledged audit rows of its re-read window on in its final offset, as the
 * table's (overlap_ledger.ts): the next run, here or on another member of a worker group, sends no tombstone
 * twice.
 *
 * Without a stored delete offset the stream starts at the instance's present on the table's first run, and where
 * the table stands on a later one (firstAuditInstant).
 */
import type { SourcePartition } from "../../connect/record.ts";
import type { SourceTaskContext } from "../../connect/task_api.ts";
import { condition, type TableClient, type TableRow } from "../../instance/mod.ts";
import { cursorFromOffset } from "../cursor.ts";
import { rawValueOf, toDisplayShape, wireDisplayValue } from "../display_value.ts";
import type { Envelope } from "../envelope.ts";
import { formatGlideDateTime } from "../glide_timestamp.ts";
import type { InstanceTimeSource } from "../instance_time.ts";
import { TablePoller } from "../table_poller.ts";
import { projectionOf } from "../page_reader.ts";
import { OverlapLedger, overlapSentFromOffset } from "../overlap_ledger.ts";
import { backfillFromOffset } from "../parallel_backfill.ts";
import { RecordBuilder } from "../record_builder.ts";
import type { RecordQueue } from "../record_queue.ts";
import type { RowValueBuilder } from "../schema_modes/mod.ts";
import type { SourceSettings, TableSettings } from "../settings.ts";
import type { StepObserver } from "../progress_tracker.ts";
import { auditTableSettings, deletePartition } from "./audit_stream.ts";
import { DeleteHorizon } from "./delete_horizon.ts";
import { DeleteRecords } from "./delete_records.ts";

export interface DeleteStreamOptions {
  readonly table: TableSettings;
  readonly source: SourceSettings;
  readonly client: TableClient;
  readonly clock: InstanceTimeSource;
  readonly context: SourceTaskContext;
  readonly instance: string;
  readonly tablePartition: SourcePartition;
  /** The table's value builder and envelope (shared: one schema per topic). */
  readonly values: RowValueBuilder;
  readonly envelope: Envelope | null;
  /** Fields a `true` display value keeps raw (as the table's poller does). */
  readonly keepRaw: ReadonlySet<string>;
  readonly queue: RecordQueue;
  readonly signal: AbortSignal;
  /** The table's progress: failures of the audit stream show as the table's last error. */
  readonly progress?: StepObserver;
  /** The task's tick policy for idle polls when they share Batch API requests (poll_batching.ts). */
  readonly alignIdlePoll?: (dueAt: number, intervalMs: number) => number;
}

export interface DeleteStream {
  readonly poller: TablePoller;
  /** Pass `horizon.clamp` as the table poller's sweep bound. */
  readonly horizon: DeleteHorizon;
  /** The delete partition, and its ledger: the task asks it what acknowledged records stood for. */
  readonly partition: SourcePartition;
  readonly ledger: OverlapLedger;
}

export async function createDeleteStream(o: DeleteStreamOptions): Promise<DeleteStream> {
  const t = o.table;
  const partition = deletePartition(o.tablePartition);
  const stored = o.context.offset(partition);
  const committed = cursorFromOffset(stored);
  // The audit rows a graceful stop listed as sent inside the re-read window: not sent again (overlap_ledger.ts).
  const sentInOverlap = overlapSentFromOffset(stored);
  const ledger = new OverlapLedger(o.source.overlapSeconds, o.source.dedupWindowRecords);
  ledger.seed(sentInOverlap);
  const start = committed === null ? await firstAuditInstant(o) : t.startTimestamp;
  o.context.logger.info(
    { table: t.table, alias: t.alias, cursor: committed ?? undefined },
    committed === null
      ? `deletions of ${t.table} are read from ${start} (no committed delete offset)`
      : `deletions of ${t.table} resume ${o.source.overlapSeconds}s before their committed cursor`,
  );
  const horizon = new DeleteHorizon((error) => o.progress?.failed(error));
  const fields = projectionOf(t.fields, t.modCountField);
  const records = new DeleteRecords({
    topic: t.topic,
    table: t.table,
    instance: o.instance,
    schemaMode: o.source.schemaMode,
    sysIdField: t.sysIdField,
    partition,
    values: o.values,
    envelope: o.envelope,
    upserts: new RecordBuilder({
      topic: t.topic,
      table: t.table,
      instance: o.instance,
      schemaMode: o.source.schemaMode,
      partition,
      values: o.values,
      envelope: o.envelope,
    }),
    readRows: (sysIds, signal) => currentRows(o, fields, sysIds, signal),
    logger: o.context.logger,
    signal: o.signal,
    ledger,
  });
  const poller = new TablePoller({
    table: auditTableSettings(t, start),
    source: o.source,
    client: o.client,
    clock: o.clock,
    context: o.context,
    partition,
    committed,
    sentInOverlap,
    ledger,
    records,
    queue: o.queue,
    signal: o.signal,
    alignIdlePoll: o.alignIdlePoll,
    progress: horizon,
    expand: async (markers) => {
      const out = await records.expand(markers);
      const tombstones = out.filter((r) => r.value === null).length;
      if (tombstones > 0) {
        o.context.metrics.increment(
          "tablesync_source_deletes_total",
          { table: t.table, alias: t.alias },
          tombstones,
        );
      }
      return out;
    },
    sweepBound: (mark) => horizon.started(mark),
    sendAhead: false,
    watchTime: false,
  }, new Set());
  return { poller, horizon, partition, ledger };
}

/** Keys per request when reading the current rows of deleted or recovered records (keeps URLs short). */
const KEYS_PER_REQUEST = 100;

/** The rows among `sysIds` that exist now, read like the table's own rows. */
async function currentRows(
  o: DeleteStreamOptions,
  fields: string[],
  sysIds: string[],
  signal: AbortSignal,
): Promise<Map<string, TableRow>> {
  const t = o.table;
  const out = new Map<string, TableRow>();
  for (let i = 0; i < sysIds.length; i += KEYS_PER_REQUEST) {
    const keys = sysIds.slice(i, i + KEYS_PER_REQUEST);
    const page = await o.client.list(t.table, {
      query: condition(t.sysIdField, "IN", keys),
      limit: keys.length,
      fields,
      displayValue: wireDisplayValue(t.displayValue),
      excludeReferenceLink: t.excludeReferenceLink,
      queryNoDomain: !t.queryDomain,
      signal,
    });
    for (const wire of page.rows) {
      const row = t.displayValue === "true" ? toDisplayShape(wire, o.keepRaw) : wire;
      const id = rawValueOf(row[t.sysIdField]);
      if (typeof id === "string") out.set(id, row);
    }
  }
  return out;
}

/**
 * Where the stream starts without a delete offset. On the table's first run (no table offset either), the
 * instance's present: rows deleted before then are not in the table, so the backfill never emits them and there is
 * nothing to retract. A table that ran before but whose stream never emitted (no deletion yet, hence no delete
 * offset) starts the overlap before where the table stands: its cursor, or its parallel backfill's high-water
 * mark. The table's sweeps never pass the deletions read (delete_horizon.ts), so its last run read them up to
 * there at least, and a deletion made since (while no task ran: a restart, a handover in a worker group) is still
 * read rather than passed over by a stream starting at a later present.
 */
async function firstAuditInstant(o: DeleteStreamOptions): Promise<string> {
  const stored = o.context.offset(o.tablePartition);
  const at = cursorFromOffset(stored)?.epochMs ?? backfillFromOffset(stored)?.high.epochMs;
  if (at === undefined) return await instancePresent(o);
  return formatGlideDateTime(at - o.source.overlapSeconds * 1000);
}

/** The instance clock now, as a start timestamp. */
async function instancePresent(o: DeleteStreamOptions): Promise<string> {
  let instantMs = o.clock.fresh();
  if (instantMs === null) {
    const date = await o.client.readClock(o.table.table, o.signal);
    o.clock.observe(date);
    instantMs = date.getTime();
  }
  return formatGlideDateTime(Math.floor(instantMs / 1000) * 1000);
}
