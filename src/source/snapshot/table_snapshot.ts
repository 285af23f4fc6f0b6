/**
 * A re-snapshot of one table on demand (`POST /connectors/<n>/tables/<alias>/snapshot`): every row of the table
 * (its own query ANDed with the one asked for) is read once more and sent as an ordinary record of the table's
 * topic, while the table's streaming and every other table go on.
 *
 * The rows are read as a parallel backfill reads them (parallel_backfill.ts, backfill_runner.ts): in
 * `svc.source.backfill.parallelism` sys id ranges, concurrently, each in keyset pages in cursor order
 * (keyset_query.ts) from the table's start timestamp up to a high-water mark fixed at the start (the instance
 * clock, whole seconds, minus one second), through the table's page reader (the task's page budget, the host's
 * permits and budget). A row changed after the mark is left to the stream, which sends its newer version anyway.
 * Each row becomes the record the stream would build (same key, value, headers, converters, transforms,
 * transactions) plus the header `tablesync.snapshot=<id>`, and carries no source offset: it never moves the
 * table's offsets, forwards or back. A row the stream already sent at a newer version while the snapshot ran is
 * not sent (streamed_versions.ts).
 *
 * Failures: a page that fails is asked for again after a backoff; after MAX_PAGE_FAILURES failures in a row the
 * snapshot ends `failed` with the reason. A stop of the task ends it (`failed`, "the task stopped"); nothing of it
 * is stored, so a restarted task does not resume it.
 */
import { type SourceRecord, SourceRecord as Record } from "../../connect/record.ts";
import type { SourceTaskContext } from "../../connect/task_api.ts";
import type { SnapshotProgress, SnapshotRequest } from "../../connect/table_progress.ts";
import { EncodedQuery, queryFields, type TableClient, type TableRow } from "../../instance/mod.ts";
import { retryBackoffMs, sleepEndingOnAbort } from "../../common/delay.ts";
import type { PageReader } from "../page_reader.ts";
import { type IdRange, splitIdSpace } from "../parallel_backfill.ts";
import type { Cursor } from "../cursor.ts";
import { earliestRow } from "../earliest_row.ts";
import { type HighWaterMark, highWaterMark, type InstanceTimeSource } from "../instance_time.ts";
import { KeysetQuery } from "../keyset_query.ts";
import { type PageRead, sameRequest } from "../read_ahead.ts";
import { type PageRequest, Sweep } from "../sweep.ts";
import { atOrBefore } from "../page_window.ts";
import { readableDictionary } from "../query_field_check.ts";
import type { RecordBuilder } from "../record_builder.ts";
import type { RecordQueue } from "../record_queue.ts";
import { readRowCursor } from "../row_cursor.ts";
import { FieldValueError } from "../schema_modes/mod.ts";
import type { TableSettings } from "../settings.ts";
import type { StreamedVersions } from "./streamed_versions.ts";
import { redact } from "../../observability/redact.ts";

export const HEADER_SNAPSHOT = "tablesync.snapshot";
/** Failed page requests in a row after which a snapshot gives up. */
export const MAX_PAGE_FAILURES = 5;
/** Longest wait between two tries of a failed page. */
const MAX_RETRY_WAIT_MS = 30_000;

export interface TableSnapshotOptions {
  readonly table: TableSettings;
  readonly context: SourceTaskContext;
  readonly client: TableClient;
  /** The instance's clock as its answers show it: the snapshot's high-water mark. */
  readonly clock: Pick<InstanceTimeSource, "estimate">;
  readonly pages: PageReader;
  readonly shaped: (row: TableRow) => TableRow;
  readonly records: Pick<RecordBuilder, "startPage" | "build">;
  readonly queue: RecordQueue;
  readonly streamed: StreamedVersions;
  /** The task's: aborting it ends a running snapshot. */
  readonly signal: AbortSignal;
}

/** How a table poller hands its page reader and row shape to the table's snapshots. */
export type SnapshotWiring = (pages: PageReader, shaped: (row: TableRow) => TableRow) => TableSnapshot;

interface Running {
  readonly progress: SnapshotProgress;
  /** The table's query ANDed with the one asked for. */
  readonly base: string;
  /** The high-water mark (instance time, to the second): rows changed after it are the stream's to send. */
  readonly mark: HighWaterMark;
  /** Ends every range when one fails or the task stops. */
  readonly abort: AbortController;
}

export class TableSnapshot {
  readonly #o: TableSnapshotOptions;
  readonly #labels: { table: string; alias: string };
  #running: Running | null = null;
  /** The latest snapshot, running or ended. */
  #latest: SnapshotProgress | null = null;
  #settled: Promise<void> = Promise.resolve();

  constructor(o: TableSnapshotOptions) {
    this.#o = o;
    this.#labels = { table: o.table.table, alias: o.table.alias };
  }

  /** Starts `request` now; false when a snapshot of the table runs already. */
  start(request: SnapshotRequest): boolean {
    if (this.#running !== null || this.#o.signal.aborted) return false;
    const t = this.#o.table;
    const ranges = Math.max(1, t.backfillParallelism);
    const progress: SnapshotProgress = {
      id: request.id,
      query: request.query,
      started_at: new Date().toISOString(),
      ended_at: null,
      rows_sent: 0,
      ranges_done: 0,
      ranges,
      state: "running",
      reason: null,
    };
    const abort = new AbortController();
    const onStop = () => abort.abort();
    this.#o.signal.addEventListener("abort", onStop, { once: true });
    const base = EncodedQuery.parse(t.query).and(request.query).toString();
    const mark = highWaterMark(this.#o.clock.estimate() ?? Date.now(), 1);
    const running = this.#running = { progress, base, mark, abort };
    this.#latest = progress;
    this.#o.streamed.open();
    this.#o.context.logger.info(
      { ...this.#labels, snapshot: request.id, query: request.query, ranges },
      `re-snapshot ${request.id} of ${t.table} (alias ${t.alias}) starts in ${ranges} sys id ranges` +
        (request.query === "" ? "" : ` narrowed by ${request.query}`),
    );
    this.#settled = this.#run(running).finally(() => {
      this.#o.signal.removeEventListener("abort", onStop);
      this.#o.streamed.close();
      this.#running = null;
    });
    return true;
  }

  /** The latest snapshot's progress (a copy), or null before the first. */
  progress(): SnapshotProgress | null {
    return this.#latest && { ...this.#latest };
  }

  /** Resolves once no snapshot runs (the task awaits it when it stops). */
  settled(): Promise<void> {
    return this.#settled;
  }

  async #run(s: Running): Promise<void> {
    const p = s.progress;
    try {
      await this.#checkFields(p.query);
      // A range that fails ends the others; the snapshot ends once every range has stopped reading.
      const ranges = await Promise.allSettled(
        splitIdSpace(p.ranges).map((range) =>
          this.#readRange(s, range).catch((error) => {
            s.abort.abort();
            throw error;
          })
        ),
      );
      const failed = ranges.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
      if (this.#o.signal.aborted) throw new Error("the task stopped");
      this.#ended(p, "done", null);
    } catch (error) {
      s.abort.abort();
      // Shown over REST and logged: redacted as a table's last error is.
      const reason = this.#o.signal.aborted
        ? "the task stopped"
        : redact(error instanceof Error ? error.message : String(error));
      this.#ended(p, "failed", reason);
    }
  }

  /** An unknown field in the query would be ignored by the instance, which would then send every row. */
  async #checkFields(query: string): Promise<void> {
    if (query === "") return;
    const t = this.#o.table;
    const dictionary = await readableDictionary(
      this.#o.client,
      t.table,
      this.#o.context.logger,
      this.#o.signal,
    );
    if (dictionary === null || dictionary.fields.size === 0) return;
    const unknown = queryFields(query).find((f) => !dictionary.fields.has(f.split(".")[0]));
    if (unknown !== undefined) {
      throw new Error(
        `the query names field ${unknown}, which table ${t.table} does not have: the instance would ignore the ` +
          `term and send every row`,
      );
    }
  }

  /**
   * Reads one sys id range to the snapshot's mark, a keyset page at a time in cursor order, as a sweep (sweep.ts):
   * where access control hides rows a short page does not end the range, the page's count does. The next page is
   * asked for as soon as a full page's last row is known (its rows parsed), so its request's latency passes while
   * this one's records are built and taken.
   */
  async #readRange(s: Running, range: IdRange): Promise<void> {
    const t = this.#o.table;
    const query = new KeysetQuery(s.base, t.timestampField, t.sysIdField, range);
    const sweep = new Sweep(t.startTimestamp, s.mark, [], true);
    /** The next page, asked for ahead, and what it asked. */
    let ahead: { request: PageRequest; read: Promise<Awaited<PageRead> | null> } | null = null;
    for (;;) {
      const request = sweep.next(query);
      let read: Awaited<PageRead> | null;
      if (ahead !== null && sameRequest(ahead.request, request)) read = await ahead.read;
      else {
        // A page asked for ahead that the sweep does not want (a count came with it): its budget share back.
        ahead?.read.then((r) => r?.done(), () => {});
        read = await this.#readPage(request, s.abort.signal);
      }
      ahead = null;
      if (read === null) return;
      if (s.abort.signal.aborted) return read.done();
      const { page, extractedAt, done }: Awaited<PageRead> = read;
      const limit: number = read.limit;
      let taken: Promise<void>;
      let more: boolean;
      try {
        const slices: TableRow[][] = [...page.slices].map((slice) => slice.map(this.#o.shaped));
        const rows = slices.reduce((n, slice) => n + slice.length, 0);
        // A row changed past the window while the page was read is not where the sweep goes on from.
        const inWindow = atOrBefore(sweep.end);
        const last = this.#lastCursor(slices, inWindow);
        // The next page is asked for before this one's records are built: its latency passes meanwhile (not when
        // the page's last row lies past the window: the sweep goes on from an earlier one).
        const lastRead = this.#lastCursor(slices, () => true);
        const next: PageRequest | null =
          rows >= limit && last !== null && lastRead !== null && inWindow(lastRead)
            ? sweep.nextAfterFull(query, last, limit, page.total)
            : null;
        if (next !== null) {
          const read = this.#readPage(next, s.abort.signal);
          // Awaited later, or given back unused: never an unhandled rejection meanwhile.
          read.catch(() => {});
          ahead = { request: next, read };
        }
        const records = slices.flatMap((slice) => this.#send(slice, extractedAt, s));
        taken = records.length > 0 ? this.#o.queue.put(records) : Promise.resolve();
        more = sweep.advance({ rows, limit, last, total: page.total });
        if (more && sweep.wantsEarliest) {
          const { client, context } = this.#o;
          sweep.earliest(await earliestRow(client, t, query, sweep, context.logger, s.abort.signal));
        }
      } catch (error) {
        done();
        // A next page asked for already gives its share of the page budget back once it arrives.
        ahead?.read.then((r) => r?.done(), () => {});
        throw error;
      }
      await taken;
      done();
      if (!more) break;
    }
    ahead?.read.then((r) => r?.done(), () => {});
    s.progress.ranges_done++;
  }

  /** A page, asked for again after a backoff when it fails; null once `signal` aborted. */
  async #readPage(request: PageRequest, signal: AbortSignal): Promise<Awaited<PageRead> | null> {
    for (let failures = 0;;) {
      if (signal.aborted) return null;
      try {
        return await this.#o.pages.read(request, signal);
      } catch (error) {
        if (signal.aborted) return null;
        if (++failures >= MAX_PAGE_FAILURES) {
          throw new Error(`${failures} page requests in a row failed, the last: ${(error as Error).message}`);
        }
        await sleepEndingOnAbort(retryBackoffMs(failures, MAX_RETRY_WAIT_MS), signal);
      }
    }
  }

  /**
   * A slice's rows as snapshot records. A page's records are built and then queued without a pause between (the
   * stream's versions are compared at the moment each is built).
   */
  #send(rows: TableRow[], extractedAt: number, s: Running): SourceRecord[] {
    const t = this.#o.table;
    const stamp = this.#o.records.startPage(rows, extractedAt);
    const records: SourceRecord[] = [];
    for (const row of rows) {
      const rc = readRowCursor(row, t.timestampField, t.sysIdField);
      // A bad row is the stream's to report.
      if (!rc.ok) continue;
      const c = rc.cursor;
      if (this.#o.streamed.supersedes(c.sysId, this.#o.streamed.versionOf(row, c.epochMs))) continue;
      let built: SourceRecord;
      try {
        built = this.#o.records.build(row, c.sysId, c.epochMs, {}, stamp);
      } catch (error) {
        if (error instanceof FieldValueError) continue;
        throw error;
      }
      const record = new Record({ ...built, sourcePartition: null, sourceOffset: null });
      record.headers.addString(HEADER_SNAPSHOT, s.progress.id);
      records.push(record);
    }
    s.progress.rows_sent += records.length;
    if (records.length > 0) {
      this.#o.context.metrics.increment(
        "tablesync_source_snapshot_records_total",
        this.#labels,
        records.length,
      );
    }
    return records;
  }

  /** The cursor of a page's last row that has one inside the sweep's window (the range reads on after it). */
  #lastCursor(slices: readonly TableRow[][], inWindow: (c: Cursor) => boolean): Cursor | null {
    const t = this.#o.table;
    for (let i = slices.length - 1; i >= 0; i--) {
      for (let j = slices[i].length - 1; j >= 0; j--) {
        const rc = readRowCursor(slices[i][j], t.timestampField, t.sysIdField);
        if (rc.ok && inWindow(rc.cursor)) return rc.cursor;
      }
    }
    return null;
  }

  #ended(p: SnapshotProgress, state: "done" | "failed", reason: string | null): void {
    p.state = state;
    p.reason = reason;
    p.ended_at = new Date().toISOString();
    const t = this.#o.table;
    const line =
      `re-snapshot ${p.id} of ${t.table} (alias ${t.alias}) ${state}: ${p.rows_sent} records sent, ` +
      `${p.ranges_done} of ${p.ranges} ranges read`;
    const fields = { ...this.#labels, snapshot: p.id, rows: p.rows_sent };
    if (state === "done") this.#o.context.logger.info(fields, line);
    else this.#o.context.logger.warn({ ...fields, reason }, `${line}; ${reason}`);
  }
}
