/**
 * One table's background reconcile passes. A pass walks the table in sys id order, a window at a time
 * (state_window.ts); for each it reads the window's state entries (the state topic's partitions of its ranges, in
 * the background: no instance request), then the window's rows in keyset pages
 * (`<query>^sys_id>=lo^sys_id<hi[^sys_id>last]^ORDERBYsys_id`, the table's fields; sys_id_scan.ts tells where
 * the window ends where access control hides rows), builds each row's record as the stream would and merges
 * (merge.ts). Each repair goes to the task's queue as a record of the table (key, value, headers as the stream's,
 * plus `tablesync.repair=<kind>`) carrying the table's current offset, so it never moves the cursor; a deletion
 * is a tombstone (after a delete envelope with `svc.source.emit.envelope=true`). Before its first pass the table reads its pass record
 * (pass_record.ts): a pass cut short on the last start (here or on another member) starts again at once.
 *
 * Budget: the table poller asks for a page only while the table waits for its next poll and a page fits before it
 * (table_poller.ts, page_fit.ts), and `work` declines while the rate-limit rule has little room left, so a pass
 * holds up a sweep by at most about one page now and then. Memory: one window of the table's entries
 * (state_window.ts, at most 50,000) and one page at a time.
 */
import { Header } from "../../connect/headers.ts";
import { type SourcePartition, SourceRecord } from "../../connect/record.ts";
import { Schema as Schemas } from "../../connect/schema.ts";
import type { SourceTaskContext } from "../../connect/task_api.ts";
import type { ReconcileProgress } from "../../connect/table_progress.ts";
import { steadyNow } from "../../common/steady_clock.ts";
import { EncodedQuery, type TableRow } from "../../instance/mod.ts";
import type { Envelope } from "../envelope.ts";
import type { PageReader } from "../page_reader.ts";
import type { RecordBuilder } from "../record_builder.ts";
import type { RecordQueue } from "../record_queue.ts";
import type { RowPosition } from "../row_handler.ts";
import { readRowCursor } from "../row_cursor.ts";
import { compareCursors } from "../cursor.ts";
import { FieldValueError, type RowValueBuilder } from "../schema_modes/mod.ts";
import type { TableSettings } from "../settings.ts";
import { type ComparedRow, deletedIn, mergeRows, type Repair, REPAIR_KINDS } from "./merge.ts";
import { StateRecorder } from "./state_recorder.ts";
import { seedMarkerKey } from "./state_seed.ts";
import { dueInMs, passRecordKey } from "./pass_record.ts";
import { rangeOf, STATE_PARTITIONS, type StateEntry } from "./state_entry.ts";
import { readStateWindow, type StateWindow } from "./state_window.ts";
import { PageFit } from "./page_fit.ts";
import { SysIdScan } from "../sys_id_scan.ts";
import { rawValueOf } from "../display_value.ts";

export const HEADER_REPAIR = "tablesync.repair";
/** How long a failed pass waits before it starts again. */
const RETRY_MS = 60_000;

export interface ReconcilePassOptions {
  readonly table: TableSettings;
  readonly context: SourceTaskContext;
  readonly tableId: string;
  readonly recorder: StateRecorder;
  readonly pages: PageReader;
  readonly shaped: (row: TableRow) => TableRow;
  readonly records: Pick<RecordBuilder, "startPage" | "build">;
  readonly values: RowValueBuilder;
  readonly envelope: Envelope | null;
  readonly queue: RecordQueue;
  readonly position: RowPosition;
  readonly partition: SourcePartition;
  /** Time between passes; 0 = only on demand. */
  readonly intervalMs: number;
  /** False while the host's rate-limit rule has little room left. */
  readonly roomLeft: () => boolean;
  /** Seeds the table's state from its topic (state_seed.ts); none = a table without state starts empty. */
  readonly seed?: () => Promise<number>;
}

interface Running {
  readonly startedAt: number;
  /** The current window: from `lo` (null: the first sys id) to `hi` (null: the last), state_window.ts. */
  lo: string | null;
  hi: string | null;
  state: Map<string, StateEntry> | null;
  loading: boolean;
  failure: Error | null;
  /** The window's rows read so far (sys_id_scan.ts); null until the window's state is read. */
  scan: SysIdScan | null;
  compared: number;
  readonly repairs: Record<string, number>;
}

export class ReconcilePass {
  readonly #o: ReconcilePassOptions;
  readonly #labels: Record<string, string>;
  #dueAt: number;
  #pass: Running | null = null;
  readonly #fit = new PageFit();
  #verifiedThrough: string | null = null;
  #last: ReconcileProgress["last_pass"] = null;
  /** The table's pass record (pass_record.ts): not read yet, being read, applied. */
  #record: "unread" | "reading" | "applied" = "unread";
  /** The warning that a window's end was not proven (no count sent) was logged. */
  #unprovenWarned = false;

  constructor(o: ReconcilePassOptions) {
    this.#o = o;
    this.#labels = { table: o.table.table, alias: o.table.alias };
    this.#dueAt = o.intervalMs > 0 ? steadyNow() + o.intervalMs : Infinity;
  }

  /** Starts a pass at the next idle moment; false when one is running already. */
  requestNow(): boolean {
    if (this.#pass !== null) return false;
    this.#dueAt = steadyNow();
    return true;
  }

  progress(): ReconcileProgress {
    const p = this.#pass;
    return {
      verified_through: this.#verifiedThrough,
      last_pass: this.#last,
      running: p === null ? null : {
        // The range of the last row compared: the ranges before it are done (pages go in sys id order).
        ranges_done: rangeOf(p.scan?.after ?? p.lo ?? ""),
        ranges: STATE_PARTITIONS,
        rows_compared: p.compared,
      },
    };
  }

  /**
   * Does one step of a pass if one is due and a page fits in `remainingMs` (the time before the table's next
   * poll); returns false when it did nothing that took time (the caller waits instead).
   */
  async work(remainingMs: number): Promise<boolean> {
    let p = this.#pass;
    if (p === null) {
      if (this.#record !== "applied") {
        if (this.#record === "unread") this.#readRecord();
        return false;
      }
      if (steadyNow() < this.#dueAt || this.#o.position.cursor() === null) return false;
      p = this.#pass = this.#start();
    }
    if (p.failure !== null) {
      this.#failed(p.failure);
      return false;
    }
    if (p.state === null) {
      if (!p.loading) this.#load(p);
      return false;
    }
    if (!this.#fit.fits(remainingMs, steadyNow()) || !this.#o.roomLeft()) return false;
    const started = steadyNow();
    try {
      await this.#page(p);
    } catch (error) {
      this.#failed(error instanceof Error ? error : new Error(String(error)));
    }
    this.#fit.observed(steadyNow() - started, steadyNow());
    return true;
  }

  /**
   * Reads where the table's passes stood when its task last ran (here or on another member) in the background:
   * a pass cut short is due at once, else the next one interval after the last began; a pass asked for
   * meanwhile keeps its time. Unreadable: one interval after this start, as without a record.
   */
  #readRecord(): void {
    this.#record = "reading";
    this.#o.recorder.passes.get(this.#o.tableId).then((record) => {
      if (record === null) return;
      if (record.verified_through !== null) this.#verified(Date.parse(record.verified_through));
      this.#last = record.last_pass;
      const due = dueInMs(record, this.#o.intervalMs, Date.now());
      if (due !== null) this.#dueAt = Math.min(this.#dueAt, steadyNow() + due);
    }, (error) =>
      // Only the schedule suffers (Kafka away at start, said by the client already): not a warning.
      this.#o.context.logger.info(
        { ...this.#labels, error: error instanceof Error ? error.message : String(error) },
        `reconcile pass record of ${this.#o.table.table} (alias ${this.#o.table.alias}) unreadable: ` +
          `the next pass is due one interval after this start`,
      )).finally(() => this.#record = "applied");
  }

  /** The last finished pass began at `startedAt` (epoch ms). */
  #verified(startedAt: number): void {
    this.#verifiedThrough = new Date(startedAt).toISOString();
    this.#o.context.metrics.set(
      "tablesync_source_verified_timestamp_seconds",
      this.#labels,
      Math.floor(startedAt / 1000),
    );
  }

  #writeRecord(runningSince: number | null): void {
    this.#o.recorder.passes.write(this.#o.tableId, {
      running_since: runningSince === null ? null : new Date(runningSince).toISOString(),
      verified_through: this.#verifiedThrough,
      last_pass: this.#last,
    });
  }

  #start(): Running {
    const t = this.#o.table;
    this.#o.context.logger.info(
      { ...this.#labels },
      `reconcile pass of ${t.table} (alias ${t.alias}) starts`,
    );
    const startedAt = Date.now();
    this.#writeRecord(startedAt);
    return {
      startedAt,
      lo: null,
      hi: null,
      state: null,
      loading: false,
      failure: null,
      scan: null,
      compared: 0,
      repairs: Object.fromEntries(REPAIR_KINDS.map((k) => [k, 0])),
    };
  }

  /** Reads the window's entries of this table in the background (seeding the state first when it has none). */
  #load(p: Running): void {
    p.loading = true;
    this.#loadWindow(p.lo)
      .then(
        (window) => {
          p.state = window.entries;
          p.hi = window.hi;
          p.scan = new SysIdScan(this.#o.table.sysIdField, p.lo, p.hi);
        },
        (error) => p.failure = error instanceof Error ? error : new Error(String(error)),
      )
      .finally(() => p.loading = false);
  }

  async #loadWindow(lo: string | null): Promise<StateWindow> {
    await this.#o.recorder.state.flush();
    const read = await this.#readWindow(lo);
    if (lo !== null || read.seeded || !this.#o.seed) return read;
    const t = this.#o.table;
    const records = await this.#o.seed();
    this.#o.context.logger.info(
      { ...this.#labels, records },
      `reconcile state of ${t.table} (alias ${t.alias}) seeded from topic ${t.topic} (${records} records read)`,
    );
    return await this.#readWindow(lo);
  }

  #readWindow(lo: string | null): Promise<StateWindow> {
    const { recorder, tableId } = this.#o;
    return readStateWindow({
      readPartition: (partition, visit) => recorder.state.readPartition(partition, visit),
      tableId,
      markerKey: seedMarkerKey(tableId),
      otherKeys: [passRecordKey(tableId)],
      lo,
    });
  }

  #failed(error: Error): void {
    this.#o.context.logger.warn(
      { ...this.#labels, error: error.message },
      `reconcile pass of ${this.#o.table.table} (alias ${this.#o.table.alias}) failed; trying again in ${
        RETRY_MS / 1000
      } s: ${error.message}`,
    );
    this.#pass = null;
    this.#dueAt = steadyNow() + RETRY_MS;
  }

  async #page(p: Running): Promise<void> {
    const t = this.#o.table;
    const scan = p.scan!;
    const next = scan.next(this.#o.pages.limit());
    const query = EncodedQuery.parse(t.query).and(...next.terms).orderBy(t.sysIdField).toString();
    const { page, limit, extractedAt, done } = await this.#o.pages.read({ query, count: next.count });
    let rows = 0;
    let last: string | null = null;
    const out: SourceRecord[] = [];
    try {
      for (const slice of page.slices) {
        rows += slice.length;
        const shaped = slice.map(this.#o.shaped);
        last = lastSysId(shaped, t.sysIdField) ?? last;
        out.push(...this.#compare(shaped, extractedAt, p));
      }
    } finally {
      done();
    }
    if (!scan.take({ rows, last, total: page.total }, limit)) {
      await this.#queue(out);
      return;
    }
    // The window read to its end: the entries no row matched are rows gone, unless the end is a short page's
    // word alone (no count sent), which rows hidden by access control may have cut short.
    if (scan.endProven) out.push(...deletedIn(p.state!).map((r) => this.#tombstones(r, p)).flat());
    else this.#unprovenEnd();
    await this.#queue(out);
    p.scan = null;
    p.state = null;
    if (p.hi === null) {
      this.#ended(p);
      return;
    }
    p.lo = p.hi;
    p.hi = null;
  }

  /** Once per task: a window's end was not proven, so its rows gone are not repaired. */
  #unprovenEnd(): void {
    if (this.#unprovenWarned) return;
    this.#unprovenWarned = true;
    const t = this.#o.table;
    this.#o.context.logger.warn(
      { ...this.#labels },
      `reconcile passes of ${t.table} (alias ${t.alias}) repair no deleted rows: the instance sends no ` +
        `X-Total-Count, so a page cut short by access control cannot be told from the end of the table`,
    );
  }

  /** A slice's rows against the range's state: the repair records. */
  #compare(rows: TableRow[], extractedAt: number, p: Running): SourceRecord[] {
    const t = this.#o.table;
    const stamp = this.#o.records.startPage(rows, extractedAt);
    const cursor = this.#o.position.cursor();
    const offset = this.#o.position.offset();
    const compared: ComparedRow[] = [];
    const built = new Map<string, { record: SourceRecord; entry: StateEntry }>();
    for (const row of rows) {
      const rc = readRowCursor(row, t.timestampField, t.sysIdField);
      if (!rc.ok) {
        // A bad row is the stream's to report; it is not a deletion either.
        if (rc.sysId !== null) p.state!.delete(rc.sysId);
        continue;
      }
      const c = rc.cursor;
      let record: SourceRecord;
      try {
        record = this.#o.records.build(row, c.sysId, c.epochMs, offset, stamp);
      } catch (error) {
        if (error instanceof FieldValueError) {
          p.state!.delete(c.sysId);
          continue;
        }
        throw error;
      }
      const entry = StateRecorder.entryOf(row, record, t.timestampField, t.modCountField);
      built.set(c.sysId, { record, entry });
      compared.push({
        sysId: c.sysId,
        updatedOn: entry.u,
        modCount: entry.m,
        digest: entry.d,
        streamOwns: cursor === null || compareCursors(c, cursor) > 0,
      });
    }
    p.compared += compared.length;
    const stale = (sysId: string) => this.#o.recorder.write(this.#o.tableId, sysId, built.get(sysId)!.entry);
    return mergeRows(compared, p.state!, stale).map((repair) => {
      const { record, entry } = built.get(repair.sysId)!;
      const out = record.newRecord({});
      out.headers.addString(HEADER_REPAIR, repair.kind);
      this.#o.recorder.note(out, entry);
      this.#count(p, repair);
      return out;
    });
  }

  /** A row gone: its tombstone, after a delete envelope when the envelope is on. */
  #tombstones(repair: Repair, p: Running): SourceRecord[] {
    this.#count(p, repair);
    const t = this.#o.table;
    const headers = [new Header(HEADER_REPAIR, Schemas.STRING_SCHEMA, repair.kind)];
    const tombstone = new SourceRecord({
      topic: t.topic,
      kafkaPartition: null,
      keySchema: Schemas.STRING_SCHEMA,
      key: repair.sysId,
      valueSchema: null,
      value: null,
      timestamp: Date.now(),
      headers,
      sourcePartition: this.#o.partition,
      sourceOffset: this.#o.position.offset(),
    });
    const envelope = this.#o.envelope;
    if (envelope === null) return [tombstone];
    const image = { [t.sysIdField]: repair.sysId };
    this.#o.values.preparePage([image]);
    const value = envelope.wrapDelete(this.#o.values.build(image), Date.now());
    return [tombstone.newRecord({ valueSchema: value.schema, value: value.value }), tombstone];
  }

  #count(p: Running, repair: Repair): void {
    p.repairs[repair.kind]++;
    this.#o.context.metrics.increment("tablesync_source_repairs_total", {
      ...this.#labels,
      kind: repair.kind,
    });
  }

  async #queue(records: SourceRecord[]): Promise<void> {
    if (records.length > 0) await this.#o.queue.put(records);
  }

  #ended(p: Running): void {
    this.#pass = null;
    this.#dueAt = this.#o.intervalMs > 0 ? steadyNow() + this.#o.intervalMs : Infinity;
    const repaired = Object.values(p.repairs).reduce((a, b) => a + b, 0);
    this.#verified(p.startedAt);
    this.#last = { ended_at: new Date().toISOString(), rows_compared: p.compared, repairs: { ...p.repairs } };
    this.#writeRecord(null);
    const t = this.#o.table;
    const line =
      `reconcile pass of ${t.table} (alias ${t.alias}): ${p.compared} rows compared, ${repaired} repaired`;
    if (repaired > 0) {
      this.#o.context.logger.info(
        { ...this.#labels, rows: p.compared, ...p.repairs },
        `${line} (${REPAIR_KINDS.map((k) => `${k} ${p.repairs[k]}`).join(", ")})`,
      );
    } else this.#o.context.logger.debug({ ...this.#labels, rows: p.compared }, `${line}: equal`);
  }
}

/** The sys id of a page's last row that has one (a bad row's too: the scan goes on after it). */
function lastSysId(rows: readonly TableRow[], field: string): string | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const id = rawValueOf(rows[i][field]);
    if (typeof id === "string" && id !== "") return id;
  }
  return null;
}
