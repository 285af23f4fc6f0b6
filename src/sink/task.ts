/**
 * The sink task (`TableSinkConnector`'s task half), run by the runtime in its own task thread (a Web Worker).
 *
 * `put` plans every record (input handling, routing, operation, field rules 1–4), then writes them through
 * the key scheduler: records of one row in offset order, different rows in parallel up to
 * `svc.sink.max.in.flight`. It returns once every record is handled, so the offsets `preCommit` hands back
 * never pass a record that is not:
 * - written: reported to the success topic (and the error topic for dropped unknown fields), then handled;
 * - a record error: reported to the error topic, offered to the runtime's dead letter queue
 *   (`context.reportRecordError`, which fails the task unless `errors.tolerance=all`), then handled per
 *   `behavior.on.api.errors` (`fail` stops the task naming the record, `log` logs and skips, `ignore` skips);
 * - a retriable failure (the instance client's retries ran out): writing stops, `put` throws
 *   `RetriableException` and the driver delivers the same records again; those already handled are skipped and
 *   those written but not yet reported are only reported, so nothing is written twice.
 */
import type { RawConfig, TypedProps } from "../common/props.ts";
import type { SinkRecord } from "../connect/record.ts";
import {
  RetriableException,
  type SinkTask,
  type SinkTaskContext,
  type TopicPartitionOffset,
} from "../connect/task_api.ts";
import {
  AmbiguousRequestError,
  BatchWriter,
  InstanceRetriableError,
  instanceSettingsFromProps,
  TableClient,
} from "../instance/mod.ts";
import { RowCreator } from "./ambiguous_create.ts";
import { DictionaryCache } from "./dictionary_cache.ts";
import { checkConfiguredFields } from "./configured_fields_check.ts";
import { UnknownFieldRule } from "./field_rules/unknown.ts";
import { KeyScheduler } from "./key_scheduler.ts";
import { OffsetTracker, sourceOf, type TopicPartition } from "./offset_tracker.ts";
import { SinkRecordError } from "./record_error.ts";
import { type Reporter, startReporter } from "./reporter.ts";
import {
  droppedFieldsReport,
  errorReport,
  type Report,
  type ReportContext,
  successReport,
} from "./reporter_record.ts";
import { type SinkSettings, sinkSettingsFromProps } from "./settings.ts";
import type { SinkTableApi } from "./table_api.ts";
import { RecordWriter } from "./writer.ts";
import { WriteVerifier } from "./write_verify.ts";
import { retriableClassOf } from "./write_refusal.ts";
import { describeUnplanned, planWrite, type WritePlan } from "./write_plan.ts";

/** Writes by how they ended: `ok`, a record error's classification, or a retriable class (write_refusal.ts). */
const WRITES_BY_CLASS = "tablesync_sink_writes_total";

/** The runtime's entry point: one task instance per task thread. */
export function createSinkTask(): SinkTask {
  return new TableSinkTask();
}

/** A record error under `behavior.on.api.errors=fail`: the task stops, naming the record. */
export class SinkRecordFailure extends Error {
  readonly javaClassName = "org.apache.kafka.connect.errors.ConnectException";
  constructor(record: SinkRecord, error: SinkRecordError) {
    const { topic, partition, offset } = sourceOf(record);
    super(
      `record at topic ${topic} partition ${partition} offset ${offset} failed (${error.classification}): ` +
        `${error.message} (behavior.on.api.errors=fail)`,
      { cause: error },
    );
    this.name = "SinkRecordFailure";
  }
}

type Planned = { plan: WritePlan; error?: undefined } | { plan?: undefined; error: SinkRecordError };

type Handled =
  | { kind: "written"; record: SinkRecord; reports: Report[] }
  /** Fully handled without reports left to send (a record error that was logged or ignored). */
  | { kind: "handled" }
  /** Not handled: left pending for a redelivery (or for nobody, when the task fails). */
  | { kind: "pending" };

/** Why a `put` stopped writing early. */
class BatchState {
  retriable: Error | null = null;
  fatal: Error | null = null;

  get halted(): boolean {
    return this.retriable !== null || this.fatal !== null;
  }
}

interface Started {
  settings: SinkSettings;
  context: SinkTaskContext;
  client: TableClient;
  reporter: Reporter;
  scheduler: KeyScheduler;
  unknownFields: UnknownFieldRule;
  writer: RecordWriter;
}

class TableSinkTask implements SinkTask {
  #started: Started | null = null;
  readonly #tracker = new OffsetTracker<Report[]>();
  /** Table and field pairs already warned about under `unknown.field.behavior=drop`: one line each, not one per record. */
  readonly #warnedDrops = new Set<string>();

  async start(config: RawConfig, props: TypedProps, context: SinkTaskContext): Promise<void> {
    const settings = sinkSettingsFromProps(props);
    const client = await TableClient.create(instanceSettingsFromProps(props));
    let reporter: Reporter;
    try {
      await checkConfiguredFields(settings, (table) => client.dictionary(table, context.signal));
      reporter = await startReporter({
        settings: settings.reporter,
        config,
        clientId: `connect-${context.connectorName}-${context.taskId}-reporter`,
        logger: context.logger,
      });
    } catch (error) {
      client.close();
      throw error;
    }
    // With the Batch API, writes go many per request; reads (lookups, dictionaries) stay single calls.
    const batches = settings.batchMaxRecords === null ? null : new BatchWriter(client.http, {
      maxRecords: settings.batchMaxRecords,
      maxConcurrentBatches: settings.maxInFlight,
    });
    const api: SinkTableApi = batches === null ? client : {
      create: (...args) => batches.create(...args),
      update: (...args) => batches.update(...args),
      delete: (...args) => batches.delete(...args),
      list: (...args) => client.list(...args),
      get: (...args) => client.get(...args),
      dictionary: (...args) => client.dictionary(...args),
    };
    const creator = new RowCreator(api, {
      behavior: settings.ambiguousCreate,
      correlationField: settings.correlationField,
      updateMethod: settings.updateMethod,
      resend: settings.resend,
    });
    const dictionaries = new DictionaryCache((table, signal) => client.dictionary(table, signal));
    this.#started = {
      settings,
      context,
      client,
      reporter,
      // Batched, a record in flight is an item waiting in or on a batch: enough to fill every batch in flight
      // and the same again waiting, so that a batch that comes back is followed at once by a full one.
      scheduler: new KeyScheduler(
        settings.batchMaxRecords === null
          ? settings.maxInFlight
          : 2 * settings.maxInFlight * settings.batchMaxRecords,
      ),
      unknownFields: new UnknownFieldRule(settings.fields.unknownFieldBehavior, dictionaries),
      writer: new RecordWriter(
        api,
        creator,
        { notFound: settings.notFound, updateMethod: settings.updateMethod },
        new WriteVerifier(settings.verify),
        // passthrough is for users who cannot read the dictionary: verification then goes by field names.
        settings.fields.unknownFieldBehavior === "passthrough"
          ? () => Promise.resolve(null)
          : (table, signal) => dictionaries.types(table, signal),
      ),
    };
    // Exposed from the start at 0, so a scrape sees the series before the first retry (rate() and alerts need it).
    context.metrics.increment("tablesync_sink_records_retried_total", {}, 0);
    context.logger.info(
      {
        routing: settings.routing.mode,
        operation: settings.operation.mode,
        maxInFlight: settings.maxInFlight,
        batchMaxRecords: settings.batchMaxRecords,
      },
      "sink task started",
    );
  }

  async put(records: SinkRecord[]): Promise<void> {
    const started = this.#require();
    const batch = new BatchState();
    const jobs: Promise<Handled>[] = [];
    for (const record of records) {
      const progress = this.#tracker.take(record);
      if (progress.state === "handled") continue;
      if (progress.state === "written") {
        jobs.push(Promise.resolve({ kind: "written", record, reports: progress.written }));
        continue;
      }
      const planned = plan(record, started.settings);
      jobs.push(
        started.scheduler.run(
          planned.plan?.orderingKey ?? null,
          () => this.#handle(started, record, planned, batch),
        ),
      );
    }
    const results = await Promise.all(jobs);

    const written = results.filter((r): r is Extract<Handled, { kind: "written" }> => r.kind === "written");
    if (written.length > 0) {
      try {
        await started.reporter.send(written.flatMap((r) => r.reports));
      } catch (error) {
        // The writes stay recorded as written: a redelivery only reports them.
        throw new RetriableException(`sending reporter records failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      for (const { record } of written) this.#tracker.handled(record);
    }
    if (batch.fatal) throw batch.fatal;
    if (batch.retriable) {
      throw new RetriableException(
        `writing to the instance stopped and will be retried (${this.#tracker.pendingCount} record(s) not handled): ` +
          batch.retriable.message,
        { cause: batch.retriable },
      );
    }
  }

  preCommit(consumed: TopicPartitionOffset[]): Promise<TopicPartitionOffset[]> {
    return Promise.resolve(this.#tracker.safeOffsets(consumed));
  }

  close(partitions: TopicPartition[]): Promise<void> {
    this.#tracker.close(partitions);
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    const started = this.#started;
    this.#started = null;
    if (!started) return;
    try {
      await started.reporter.close();
    } finally {
      started.client.close();
    }
  }

  async #handle(started: Started, record: SinkRecord, planned: Planned, batch: BatchState): Promise<Handled> {
    const { context, unknownFields, writer } = started;
    if (batch.halted || context.signal.aborted) return { kind: "pending" };
    const known = planned.plan ?? { operation: null, ...describeUnplanned(record, started.settings) };
    let report: ReportContext = {
      record,
      operation: known.operation,
      table: known.table,
      sysId: known.sysId,
      requestId: crypto.randomUUID(),
    };
    try {
      if (planned.error) throw planned.error;
      const { plan } = planned;
      const { body, dropped } = plan.operation === "delete"
        ? { body: plan.body, dropped: [] }
        : await unknownFields.apply(plan.table, plan.body, context.writeSignal);
      const result = await writer.write(plan, body, context.writeSignal);
      report = { ...report, operation: result.operation, sysId: result.sysId };
      const reports = [successReport(report, result.status, result.outcome)];
      if (dropped.length > 0) {
        reports.push(droppedFieldsReport(report, result.status, dropped));
        this.#warnDropped(context, plan.table, dropped);
      }
      this.#tracker.written(record, reports);
      context.metrics.increment("tablesync_sink_records_written_total", {
        table: plan.table,
        outcome: result.outcome,
      });
      context.metrics.increment(WRITES_BY_CLASS, { class: "ok" });
      for (const field of result.rewritten ?? []) {
        context.metrics.increment("tablesync_sink_fields_rewritten_total", { table: plan.table, field });
      }
      return { kind: "written", record, reports };
    } catch (error) {
      if (error instanceof SinkRecordError) {
        return await this.#recordError(started, record, report, error, batch);
      }
      if (isRetriable(error) || context.signal.aborted) {
        batch.retriable ??= error as Error;
        context.metrics.increment("tablesync_sink_records_retried_total");
        if (!context.signal.aborted) {
          context.metrics.increment(WRITES_BY_CLASS, { class: retriableClassOf(error) });
        }
      } else {
        batch.fatal ??= error as Error;
      }
      return { kind: "pending" };
    }
  }

  /** Reporter, then dead letter queue, then `behavior.on.api.errors`, in that order. */
  async #recordError(
    started: Started,
    record: SinkRecord,
    report: ReportContext,
    error: SinkRecordError,
    batch: BatchState,
  ): Promise<Handled> {
    const { context, settings } = started;
    context.metrics.increment("tablesync_sink_records_failed_total", {
      classification: error.classification,
    });
    context.metrics.increment(WRITES_BY_CLASS, { class: error.classification });
    try {
      await started.reporter.send([errorReport(report, error)]);
    } catch (sendError) {
      batch.retriable ??= new Error(`sending an error report failed: ${(sendError as Error).message}`, {
        cause: sendError,
      });
      return { kind: "pending" };
    }
    try {
      await context.reportRecordError(record, error);
    } catch (toleranceError) {
      // errors.tolerance=none (or tolerance exceeded): the runtime's verdict fails the task.
      batch.fatal ??= toleranceError as Error;
      return { kind: "pending" };
    }
    const { topic, partition, offset } = sourceOf(record);
    switch (settings.onApiErrors) {
      case "fail":
        batch.fatal ??= new SinkRecordFailure(record, error);
        return { kind: "pending" };
      case "log":
        context.logger.warn(
          { topic, partition, offset, classification: error.classification, request_id: report.requestId },
          `record skipped after a record error: ${error.message}`,
        );
        break;
      case "ignore":
        break;
    }
    this.#tracker.handled(record);
    return { kind: "handled" };
  }

  #warnDropped(context: SinkTaskContext, table: string, dropped: readonly string[]): void {
    const fresh = dropped.filter((field) => !this.#warnedDrops.has(`${table}\u0000${field}`));
    if (fresh.length === 0) return;
    for (const field of fresh) this.#warnedDrops.add(`${table}\u0000${field}`);
    context.logger.warn(
      { table, fields: fresh },
      "fields absent from the table's dictionary are left out (svc.sink.unknown.field.behavior=drop)",
    );
  }

  #require(): Started {
    if (!this.#started) throw new Error("the sink task is not started");
    return this.#started;
  }
}

/** A record's write plan, or the record error that planning met (any failure there is about the record). */
function plan(record: SinkRecord, settings: SinkSettings): Planned {
  try {
    return { plan: planWrite(record, settings) };
  } catch (error) {
    if (error instanceof SinkRecordError) return { error };
    return { error: new SinkRecordError("mapping", (error as Error).message, { cause: error }) };
  }
}

function isRetriable(error: unknown): boolean {
  return error instanceof InstanceRetriableError || error instanceof AmbiguousRequestError ||
    error instanceof RetriableException;
}
