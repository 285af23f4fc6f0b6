/**
 * The source task: polls its tables (one `TablePoller` loop each, so that a table in trouble never holds up the
 * others) and hands their records to the runtime through `poll()`.
 *
 * The runtime imports `createSourceTask`.
 */
import { unreadDeletions } from "./deletes/unread_deletions.ts";
import type { SourceOffset, SourcePartition, SourceRecord } from "../connect/record.ts";
import type { SourceOffsetEntry, SourceTask, SourceTaskContext } from "../connect/task_api.ts";
import type { RawConfig, TypedProps } from "../common/props.ts";
import { aggregateCount, instanceSettingsFromProps, TableClient, type TableRow } from "../instance/mod.ts";
import { cursorFromOffset } from "./cursor.ts";
import { Envelope } from "./envelope.ts";
import { backfillFromOffset } from "./parallel_backfill.ts";
import { InstanceTimeSource } from "./instance_time.ts";
import { OverlapLedger, overlapSentFromOffset } from "./overlap_ledger.ts";
import { sourcePartition } from "./partition.ts";
import { RecordBuilder } from "./record_builder.ts";
import { RecordQueue } from "./record_queue.ts";
import { PageBudget } from "./page_budget.ts";
import { keptRaw, valueBuilderFor } from "./table_values.ts";
import { createDeleteStream } from "./deletes/delete_stream.ts";
import { probeAuditAccess } from "./deletes/audit_probe.ts";
import { type SourceSettings, sourceSettingsFromProps } from "./settings.ts";
import { probeTable } from "./startup_probe.ts";
import { ProgressTracker } from "./progress_tracker.ts";
import { ProgressReporter, type ProgressReporterOptions } from "./progress_reporter.ts";
import { TablePoller } from "./table_poller.ts";
import { pollBatchingFor } from "./poll_batching.ts";
import { PollScheduler } from "./poll_scheduler.ts";
import { parseTypedFields } from "./typed_coercion.ts";
import { openRecorder, reconcileWiring } from "./reconcile/reconcile_wiring.ts";
import { StateRecorder } from "./reconcile/state_recorder.ts";
import { StreamedVersions } from "./snapshot/streamed_versions.ts";
import { TableSnapshot } from "./snapshot/table_snapshot.ts";
import type { SnapshotRequest } from "../connect/table_progress.ts";

/** Longest `poll()` waits for records before returning an empty list to the driver. */
const MAX_POLL_WAIT_MS = 1000;

export interface TableSourceTaskOptions {
  /** Longest `poll()` waits for records before returning an empty list. Default MAX_POLL_WAIT_MS. */
  readonly pollWaitMs?: number;
  /** Intervals of progress reports, counts and log lines (progress_reporter.ts defaults). */
  readonly progress?: ProgressReporterOptions;
  /** Bytes of page bodies held at once across the task's tables (page_budget.ts). Default PAGE_BUDGET_BYTES. */
  readonly pageBudgetBytes?: number;
}

export class TableSourceTask implements SourceTask {
  #client: TableClient | null = null;
  #pollers: TablePoller[] = [];
  #trackers: ProgressTracker[] = [];
  #reporter: ProgressReporter | null = null;
  #loops: Promise<void>[] = [];
  #queue = new RecordQueue();
  /** Page bodies held at once, across the task's tables (page_budget.ts). */
  readonly #pageBudget: PageBudget;
  #failure: Error | null = null;
  /** When each idle table polls, within the instance host's request budget (poll_scheduler.ts). */
  #scheduler: PollScheduler | null = null;
  #abort = new AbortController();
  #unlink: () => void = () => {};
  /**
   * Each table's acknowledged versions near its cursor, by partitionKey of its source partition; with deletion
   * capture also its delete stream's, under the delete partition.
   */
  #ledgers = new Map<string, OverlapLedger>();
  /** The same ledgers by partition object. */
  readonly #ledgerOf = new WeakMap<SourcePartition, OverlapLedger>();
  /** Writes the reconcile state as records are acknowledged, when some table reconciles (reconcile/). */
  #recorder: StateRecorder | null = null;
  #logger: SourceTaskContext["logger"] | null = null;

  constructor(private readonly options: TableSourceTaskOptions = {}) {
    this.#pageBudget = new PageBudget(options.pageBudgetBytes);
  }

  /** The pollers, for tests and status. */
  get pollers(): readonly TablePoller[] {
    return this.#pollers;
  }

  async start(_config: RawConfig, props: TypedProps, context: SourceTaskContext): Promise<void> {
    const onAbort = () => this.#abort.abort();
    if (context.signal.aborted) this.#abort.abort();
    context.signal.addEventListener("abort", onAbort, { once: true });
    this.#unlink = () => context.signal.removeEventListener("abort", onAbort);
    const signal = this.#abort.signal;

    this.#logger = context.logger;
    const settings = sourceSettingsFromProps(props);
    const client = await TableClient.create(instanceSettingsFromProps(props));
    this.#client = client;
    const instance = client.instance.hostname;
    const typedFields = settings.schemaMode === "typed" ? parseTypedFields(settings.typedFields) : new Map();
    const clock = new InstanceTimeSource();

    if (settings.startupProbe) {
      try {
        await this.#probe(settings, client, context, clock, signal);
      } catch (error) {
        // The runtime may not call stop() after a failed start: release the client here.
        this.#unlink();
        client.close();
        this.#client = null;
        throw error;
      }
    }

    const alignIdlePoll = pollBatchingFor(settings, client, context.logger);
    const scheduler = new PollScheduler(client.http.budget, settings.pollIntervalMaxMs ?? 0);
    const recorder = this.#recorder = await openRecorder(
      settings.tables,
      settings.reconcileStateTopic,
      context,
    );
    const roomLeft = () => {
      const rule = client.http.budget?.snapshot();
      return !rule || rule.limit <= 0 || rule.remainingEstimate > Math.max(10, rule.limit / 10);
    };
    this.#scheduler = scheduler;
    for (const table of settings.tables) {
      const partition = sourcePartition(table.table, instance, table);
      const stored = context.offset(partition);
      const committed = cursorFromOffset(stored);
      const backfill = backfillFromOffset(stored);
      const { ledger, sentInOverlap } = this.#ledgerFor(partition, stored, settings);
      context.logger.info(
        { table: table.table, alias: table.alias, cursor: committed ?? undefined },
        backfill !== null
          ? `table ${table.table} resumes its parallel backfill (${
            backfill.ranges.filter((r) => !r.done).length
          } ` +
            `of ${backfill.ranges.length} ranges left)`
          : committed === null
          ? `table ${table.table} starts at ${table.startTimestamp} (no committed offset)`
          : `table ${table.table} resumes ${settings.overlapSeconds}s before its committed cursor`,
      );
      const values = valueBuilderFor(table, settings, typedFields, context);
      const envelope = settings.emitEnvelope ? new Envelope(table.table, instance) : null;
      const keepRaw = keptRaw(table, settings, typedFields);
      const streamed = new StreamedVersions(table.modCountField);
      const noteState = recorder && table.reconcileIntervalSeconds > 0
        ? (record: SourceRecord, row: TableRow) =>
          recorder.note(record, StateRecorder.entryOf(row, record, table.timestampField, table.modCountField))
        : undefined;
      const records = new RecordBuilder({
        topic: table.topic,
        table: table.table,
        instance,
        schemaMode: settings.schemaMode,
        partition,
        values,
        envelope,
        observe: (record, row) => {
          noteState?.(record, row);
          streamed.observe(record, row);
        },
      });
      const progress = this.#track(
        new ProgressTracker(table, committed, clock, Date.now, settings.safetyLagSeconds),
      );
      const deletes = table.captureDeletes
        ? await createDeleteStream({
          table,
          source: settings,
          client,
          clock,
          context,
          instance,
          tablePartition: partition,
          values,
          envelope,
          keepRaw,
          queue: this.#queue,
          signal,
          progress,
          alignIdlePoll,
        })
        : null;
      const poller = new TablePoller({
        table,
        source: settings,
        client,
        clock,
        context,
        partition,
        committed,
        sentInOverlap,
        ledger,
        backfill,
        records,
        queue: this.#queue,
        pageBudget: this.#pageBudget,
        signal,
        progress,
        alignIdlePoll,
        schedule: scheduler.add(table.pollIntervalMs),
        sweepBound: deletes ? (mark, signal) => deletes.horizon.clamp(mark, signal) : undefined,
        sendAhead: !deletes,
        tailGuard: deletes
          ? (ids, signal) => unreadDeletions(client, table, deletes.horizon, ids, signal)
          : undefined,
        reconcile: recorder
          ? reconcileWiring({
            table,
            context,
            recorder,
            records,
            values,
            envelope,
            queue: this.#queue,
            partition,
            roomLeft,
          })
          : undefined,
        snapshot: (pages, shaped) =>
          new TableSnapshot({
            table,
            context,
            client,
            clock,
            pages,
            shaped,
            records,
            queue: this.#queue,
            streamed,
            signal,
          }),
      }, keepRaw);
      this.#pollers.push(poller);
      // The table's tracker, by table: with deletion capture the pollers outnumber the trackers.
      const { reconcile: pass, snapshot } = poller;
      if (pass) progress.reconcile = () => pass.progress();
      if (snapshot) progress.resnapshot = () => snapshot.progress();
      if (deletes) {
        this.#pollers.push(deletes.poller);
        this.#ledgers.set(partitionKey(deletes.partition), deletes.ledger);
      }
    }
    scheduler.open();
    this.#reporter = new ProgressReporter(this.#trackers, context, (name) => async (query) => {
      const result = await aggregateCount(client.http, name, query, signal);
      if ("count" in result) return result.count;
      context.logger.info({ table: name }, `no backfill estimate for ${name}: ${result.unavailable}`);
      return null;
    }, this.options.progress);
    this.#reporter.tick();
    this.#loops = this.#pollers.map((p) =>
      p.run().catch((error) => {
        if (this.#failure === null) this.#failure = error instanceof Error ? error : new Error(String(error));
        this.#queue.notify();
      })
    );
  }

  #track(tracker: ProgressTracker): ProgressTracker {
    this.#trackers.push(tracker);
    return tracker;
  }

  async #probe(
    settings: SourceSettings,
    client: TableClient,
    context: SourceTaskContext,
    clock: InstanceTimeSource,
    signal: AbortSignal,
  ): Promise<void> {
    let warned = false;
    // The probes start the tables' catch-up, one table after another: they may burst (rate_pacer.ts).
    client.http.budget?.registerCatchUps(1);
    try {
      for (const table of settings.tables) {
        const outcome = await probeTable(client, table, context.logger, signal, clock);
        if (table.captureDeletes) await probeAuditAccess(client, table, context.logger, signal);
        if (outcome?.nonUtcTimeZone && !warned) {
          warned = true;
          context.logger.warn(
            { table: table.table, alias: table.alias },
            "the integration user's time zone is not UTC (date-time display values differ from their UTC values); " +
              "set it to UTC: display values and date helpers in queries follow it",
          );
        }
      }
    } finally {
      client.http.budget?.registerCatchUps(-1);
    }
  }

  async poll(): Promise<SourceRecord[]> {
    if (this.#failure) throw this.#failure;
    if (this.#logger) await this.#recorder?.caughtUp(this.#logger);
    await this.#queue.waitForRecords(this.options.pollWaitMs ?? MAX_POLL_WAIT_MS, this.#abort.signal);
    if (this.#failure) throw this.#failure;
    return this.#queue.drain();
  }

  /** A source partition's overlap ledger, seeded with the versions its committed offset lists. */
  #ledgerFor(partition: SourcePartition, stored: SourceOffset | null, settings: SourceSettings) {
    const sentInOverlap = overlapSentFromOffset(stored);
    const ledger = new OverlapLedger(settings.overlapSeconds, settings.dedupWindowRecords);
    ledger.seed(sentInOverlap);
    this.#ledgers.set(partitionKey(partition), ledger);
    return { ledger, sentInOverlap };
  }

  whenAcknowledged(record: SourceRecord): (() => void) | null {
    const partition = record.sourcePartition;
    if (!partition) return null;
    // Records carry their table's partition object: its ledger is found without serialising it per record.
    let ledger = this.#ledgerOf.get(partition);
    if (ledger === undefined) {
      ledger = this.#ledgers.get(partitionKey(partition));
      if (ledger) this.#ledgerOf.set(partition, ledger);
    }
    return ledger?.whenAcknowledged(record) ?? null;
  }

  /**
   * A record's reconcile state entry is written once the record is in its topic for good: exactly-once, after its
   * transaction committed, so an aborted transaction leaves no entry for a record the topic does not hold.
   */
  whenCommitted(record: SourceRecord): (() => void) | null {
    return this.#recorder?.committed(record) ?? null;
  }

  /** Graceful stop: each table's final offset lists the versions sent inside its overlap window. */
  finalOffsets(committed: readonly SourceOffsetEntry[]): SourceOffsetEntry[] {
    return committed.flatMap(({ partition, offset }) => {
      const ledger = this.#ledgers.get(partitionKey(partition));
      const final = ledger?.finalOffset(offset);
      return final && final !== offset ? [{ partition, offset: final }] : [];
    });
  }

  /** POST /connectors/<n>/tables/<alias>/reconcile: the table's pass starts at its next idle moment. */
  reconcileNow(alias: string): void {
    for (const p of this.#pollers) {
      if (p.alias !== alias || !p.reconcile) continue;
      const started = p.reconcile.requestNow();
      this.#logger?.info(
        { alias },
        started
          ? `reconcile pass of table alias ${alias} requested over REST`
          : `reconcile pass of table alias ${alias} requested over REST while one runs: ignored`,
      );
    }
  }

  /** POST /connectors/<n>/tables/<alias>/snapshot: the table's re-snapshot starts now, unless one runs. */
  snapshotNow(alias: string, request: SnapshotRequest): void {
    const started = this.#pollers.find((p) => p.alias === alias && p.snapshot)?.snapshot?.start(request);
    if (!started) {
      this.#logger?.info(
        { alias },
        `re-snapshot of table alias ${alias} requested over REST while one runs: ignored`,
      );
    }
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    this.#reporter?.stop();
    this.#queue.discard();
    await Promise.all(this.#loops);
    await Promise.all(this.#pollers.map((p) => p.snapshot?.settled()));
    this.#scheduler?.close();
    await this.#recorder?.state.close();
    this.#unlink();
    this.#client?.close();
    this.#client = null;
  }
}

/** A partition's identity whatever its field order (the runtime hands back copies of our partitions). */
function partitionKey(partition: SourcePartition): string {
  return JSON.stringify(Object.entries(partition).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The factory the runtime imports. */
export function createSourceTask(): SourceTask {
  return new TableSourceTask();
}
