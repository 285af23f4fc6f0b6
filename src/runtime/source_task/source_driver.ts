/**
 * Drives a source task in its task thread (Kafka Connect's WorkerSourceTask):
 *   poll → transforms → converters → producer → ack → whenAcknowledged's callback (Connect's commitRecord) →
 *   committable offsets to the main thread.
 *
 * Offsets advance only past records Kafka acknowledged (SubmittedRecords keeps per-partition order), so a crash
 * at any instant re-delivers rather than loses. Sends are pipelined (bounded by `maxInFlightRecords`).
 *
 * Exactly-once (`transactions` given): records go into the task's open transaction, and at each boundary the
 * committable offsets, with what the task's next run must know (its `finalOffsets`: the versions sent inside the
 * overlap window), are written into the same transaction and committed (source_transactions.ts). A failed send
 * or commit fails the task: nothing of the open transaction counts, and the next run resumes from the last commit.
 */
import { RetriableException, type SourceOffsetEntry, type SourceTask } from "../../connect/task_api.ts";
import type { SourceRecord } from "../../connect/record.ts";
import type { ProducedRecord, Producer } from "../../kafka/mod.ts";
import type { Logger } from "../../observability/log.ts";
import type { MetricsRegistry } from "../../observability/metrics.ts";
import { redact } from "../../observability/redact.ts";
import { type SubmittedRecord, SubmittedRecords } from "../offsets/submitted_records.ts";
import type { ErrorHandler } from "../errors/error_handler.ts";
import type { RecordConverters } from "../task/record_bytes.ts";
import { SourceRecordPreparer } from "./source_record_preparer.ts";
import { PauseGate } from "../task/pause_gate.ts";
import { callbacksOf, type RecordCallbacks, type SendBatch, sizeOf } from "./send_batch.ts";
import { retryBackoffMs, sleepEndingOnAbort } from "../../common/delay.ts";
import { EventLoopTurns } from "../../common/event_loop_turn.ts";
import type { OffsetUpdate } from "../offsets/types.ts";
import { producingFailed } from "./source_topics.ts";
import { type SourceTransactions, withFinalOffsets } from "./source_transactions.ts";
import type { RecordTransformer } from "../task/record_transformer.ts";

export interface SourceDriverOptions {
  task: SourceTask;
  producer: Producer;
  converters: RecordConverters;
  transforms: RecordTransformer<SourceRecord>;
  errors: ErrorHandler;
  logger: Logger;
  metrics: MetricsRegistry;
  /** KIP-558: called for each topic records were produced to (once Kafka acknowledged them). */
  onTopic?: (topic: string) => void;
  /**
   * Called with committable offsets whenever acknowledged records let them advance; `committed` when an
   * exactly-once transaction already wrote them.
   */
  commitOffsets: (entries: OffsetUpdate[], committed?: boolean) => void;
  /** Exactly-once: records and offsets in one transaction per boundary (source_transactions.ts). */
  transactions?: SourceTransactions;
  /** Makes sure a topic exists before its first record is sent (topic.creation.* or a clear error). */
  ensureTopic: (topic: string) => Promise<void>;
  /** Sees each record's topic and timestamp before it is sent (the retention check, topic_retention.ts). */
  checkRecordTime?: (topic: string, timestamp: number | undefined) => void;
  /**
   * Records sent but not yet acknowledged before polling waits. Default 5000 (one 5000-row page): the next page
   * is converted while this one is produced, and no more pages of bytes pile up behind a slow broker.
   */
  maxInFlightRecords?: number;
  /**
   * Bytes (keys, values, headers) of records sent but not yet acknowledged before polling waits: the bound on
   * what waits for acks when rows are large, where a count alone would let 5000 records of 100 KB pile up.
   * Default MAX_IN_FLIGHT_BYTES. A poll larger than this alone is still sent, once nothing else is in flight.
   */
  maxInFlightBytes?: number;
  /** Largest wait between retries of a retriable poll or send failure. Default 30000. */
  maxRetryBackoffMs?: number;
}

/** Default bytes of records awaiting acks: 16 MiB, a page and a half of 5000 rows of 2 KB. */
const MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024;

export class SourceDriver {
  #o: SourceDriverOptions;
  #preparer: SourceRecordPreparer;
  #gate = new PauseGate();
  #stop = new AbortController();
  #submitted = new SubmittedRecords();
  #lastSend: Promise<void> = Promise.resolve();
  /** Sends not yet settled, oldest first (sends are chained: they settle in this order); drained on stop. */
  #unsettled: Promise<void>[] = [];
  /** Bytes of the records of those sends. */
  #unsettledBytes = 0;
  /** The batch of records waiting for the send before it to settle, which later polls join; null when none. */
  #waiting: SendBatch | null = null;
  #knownTopics = new Set<string>();
  #fatal: Error | null = null;
  /** The latest offset committed of each source partition (by its JSON), for the final offsets. */
  #committed = new Map<string, SourceOffsetEntry>();
  /** Exactly-once: a commit is chained and has not started yet. */
  #commitChained = false;
  /** Exactly-once: the whenCommitted callbacks of the records in the open transaction. */
  #awaitingCommit: (() => void)[] = [];
  /** Lets Kafka's responses in between polls that find their records at hand (event_loop_turn.ts). */
  #turns = new EventLoopTurns();

  constructor(options: SourceDriverOptions) {
    this.#o = options;
    this.#preparer = new SourceRecordPreparer(options);
  }

  pause(): void {
    this.#gate.pause();
    // Exactly-once, interval boundary: a transaction left open while paused would outlive transaction.timeout.ms
    // and be aborted by the broker, failing the task; it commits now instead.
    if (this.#o.transactions?.isOpen) this.#chainCommit();
  }

  resume(): void {
    this.#gate.resume();
  }

  /** Asks the loop to finish: no new polls; in-flight sends complete and their offsets are committed. */
  stop(): void {
    this.#stop.abort();
    this.#gate.resume();
  }

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** Runs until stopped (resolves) or failed (rejects with the task's error). */
  async run(): Promise<void> {
    let pollFailures = 0;
    try {
      while (!this.#stop.signal.aborted && !this.#fatal) {
        await this.#gate.wait();
        await this.#turns.take();
        if (this.#stop.signal.aborted) break;
        let records: SourceRecord[];
        try {
          records = await this.#o.task.poll();
          pollFailures = 0;
        } catch (e) {
          if (!(e instanceof RetriableException) || this.#stop.signal.aborted) throw e;
          pollFailures++;
          const wait = retryBackoffMs(pollFailures, this.#o.maxRetryBackoffMs ?? 30000);
          this.#o.logger.warn(
            { err: e, attempt: pollFailures, waitMs: Math.round(wait) },
            "poll failed retriably; retrying",
          );
          await sleepEndingOnAbort(wait, this.#stop.signal);
          continue;
        }
        if (records.length > 0) await this.#dispatch(records);
        else if (this.#o.transactions?.due()) this.#chainCommit();
      }
    } finally {
      // Whatever ended the loop, let sent records settle so their offsets are committed.
      await this.#drain();
    }
    if (this.#fatal) throw this.#fatal;
  }

  async #dispatch(records: SourceRecord[]): Promise<void> {
    const out: ProducedRecord[] = [];
    const handles: (SubmittedRecord | null)[] = [];
    // What to call on each record's ack (the task's callbacks, not its records: rows are let go once converted).
    const task = this.#o.task;
    const callbacks: (RecordCallbacks | null)[] | null = task.whenAcknowledged || task.whenCommitted
      ? []
      : null;
    let bytes = 0;
    for (const original of records) {
      const handle = original.sourcePartition && original.sourceOffset
        ? this.#submitted.submit(original.sourcePartition, original.sourceOffset)
        : null;
      // Synchronous unless a transform failed or a converter must fetch a schema first: no await per record.
      let prepared = this.#preparer.prepare(original);
      if (prepared instanceof Promise) prepared = await prepared;
      if (prepared === null) {
        if (handle) this.#submitted.drop(handle);
        continue;
      }
      if (!this.#knownTopics.has(prepared.topic)) {
        await this.#o.ensureTopic(prepared.topic);
        this.#knownTopics.add(prepared.topic);
      }
      this.#o.checkRecordTime?.(prepared.topic, prepared.timestamp);
      out.push(prepared);
      bytes += sizeOf(prepared);
      handles.push(handle);
      callbacks?.push(callbacksOf(task, original));
    }
    // The polled array is the driver's now and its rows are converted: emptying it lets them be collected while
    // this waits for acks, instead of living as long as this call.
    records.length = 0;
    this.#publishOffsets();
    if (out.length === 0) {
      // Exactly-once: offsets of dropped records advance in a transaction of their own.
      if (this.#o.transactions) this.#chainCommit();
      return;
    }
    try {
      // This poll's own records count as in flight already (submitted, not yet sent): waiting for fewer than them
      // would wait for ever. So: at most `maxInFlightRecords` sent and unacknowledged before these go, or none
      // when these alone are more (a poll can hand over several tables' pages at once).
      const own = handles.reduce((n, h) => h ? n + 1 : n, 0);
      const limit = Math.max(this.#o.maxInFlightRecords ?? 5000, own);
      await this.#submitted.awaitInFlightAtMost(limit, this.#stop.signal);
      await this.#awaitInFlightBytesFor(bytes);
    } catch (e) {
      // Stopping while waiting for acks: these records are never sent, so their offsets never advance.
      if (this.#stop.signal.aborted) return;
      throw e;
    }
    // Sends are chained, one request at a time, as Kafka Connect's source producers do: a retried batch can
    // never land after a later one, so row versions stay in order within each partition. Polling the next
    // page still overlaps with the send. What polls convert while a send is in flight waits in one batch, sent
    // whole once that send settled: small polls (a slice of a page each) do not make a request each.
    let batch = this.#waiting;
    if (batch === null) batch = this.#waiting = this.#chainBatch(callbacks !== null);
    for (let i = 0; i < out.length; i++) {
      batch.out.push(out[i]);
      batch.handles.push(handles[i]);
      batch.callbacks?.push(callbacks![i]);
    }
    batch.bytes += bytes;
    this.#unsettledBytes += bytes;
  }

  /** A new batch of records, sent once every send before it settled (and joined by polls until then). */
  #chainBatch(withCallbacks: boolean): SendBatch {
    const batch: SendBatch = { out: [], handles: [], callbacks: withCallbacks ? [] : null, bytes: 0 };
    this.#chain(() => {
      if (this.#waiting === batch) this.#waiting = null;
      return this.#send(batch.out, batch.handles, batch.callbacks);
    }, () => this.#unsettledBytes -= batch.bytes);
    return batch;
  }

  /** Runs `work` once every send before it settled; tracked as unsettled until it has. */
  #chain(work: () => Promise<void>, onSettled?: () => void): void {
    const next = this.#lastSend.then(work);
    this.#lastSend = next;
    const settled: Promise<void> = next.then(() => {}, () => {}).then(() => {
      this.#unsettled.splice(this.#unsettled.indexOf(settled), 1);
      onSettled?.();
    });
    this.#unsettled.push(settled);
  }

  /**
   * Waits until `bytes` more fit under maxInFlightBytes, or nothing is in flight. Sends settle by themselves
   * when stopping (a send gives up instead of retrying), so this never waits for ever.
   */
  async #awaitInFlightBytesFor(bytes: number): Promise<void> {
    const max = this.#o.maxInFlightBytes ?? MAX_IN_FLIGHT_BYTES;
    while (this.#unsettled.length > 0 && this.#unsettledBytes + bytes > max) {
      await this.#unsettled[0];
      this.#stop.signal.throwIfAborted();
    }
  }

  async #send(
    out: ProducedRecord[],
    handles: (SubmittedRecord | null)[],
    callbacks: (RecordCallbacks | null)[] | null,
  ): Promise<void> {
    const transactions = this.#o.transactions;
    if (transactions) {
      // No retry inside a transaction: a failed send leaves it unusable; the task starts over with a new producer.
      if (this.#fatal) return;
      // Nothing of a transaction counts before its commit, and a failure fails the task: the records count as
      // acknowledged at once, so that at a boundary their offsets go out in the same request as they do.
      this.#acknowledged(out, handles, callbacks);
      const started = performance.now();
      if (transactions.dueAfterSend()) await this.#commitTransaction(out);
      else {
        try {
          await transactions.send(out);
        } catch (e) {
          this.#failTransaction(e);
          return;
        }
      }
      this.#observeProduce(started);
      return;
    }
    for (let attempt = 1;; attempt++) {
      const started = performance.now();
      try {
        await this.#o.producer.send(out);
        this.#observeProduce(started);
        break;
      } catch (e) {
        const error = e as Error & { retriable?: boolean };
        // A failed send may have written some records: resending is at-least-once, never loss.
        if (error.retriable === false || this.#fatal) {
          this.#fatal ??= producingFailed(error, out.map((r) => r.topic));
          this.#stop.abort();
          return;
        }
        // Stopping: give up on this batch; its records stay unacknowledged, so their offsets never advance.
        if (this.#stop.signal.aborted) return;
        const wait = retryBackoffMs(attempt, this.#o.maxRetryBackoffMs ?? 30000);
        this.#o.logger.warn({ err: error, attempt, records: out.length }, "send to Kafka failed; retrying");
        await sleepEndingOnAbort(wait, this.#stop.signal);
      }
    }
    this.#acknowledged(out, handles, callbacks);
    this.#publishOffsets();
  }

  #observeProduce(started: number): void {
    this.#o.metrics.observe(
      "tablesync_kafka_produce_duration_seconds",
      {},
      (performance.now() - started) / 1000,
    );
  }

  /**
   * Kafka has the records (in the open transaction, when exactly-once): their offsets may advance. Their
   * `whenCommitted` callbacks run now, or exactly-once once their transaction committed.
   */
  #acknowledged(
    out: ProducedRecord[],
    handles: (SubmittedRecord | null)[],
    callbacks: (RecordCallbacks | null)[] | null,
  ): void {
    const perTopic = new Map<string, number>();
    const transactional = this.#o.transactions !== undefined;
    for (let i = 0; i < out.length; i++) {
      const handle = handles[i];
      if (handle) this.#submitted.ack(handle);
      const c = callbacks?.[i];
      c?.acknowledged?.();
      if (c?.committed) {
        if (transactional) this.#awaitingCommit.push(c.committed);
        else c.committed();
      }
      perTopic.set(out[i].topic, (perTopic.get(out[i].topic) ?? 0) + 1);
    }
    for (const [topic, count] of perTopic) {
      this.#o.metrics.increment("tablesync_source_records_produced_total", { topic }, count);
      this.#o.onTopic?.(topic);
    }
  }

  /** Exactly-once: a commit of the open transaction (or of offsets alone) after every send before it. */
  #chainCommit(): void {
    if (this.#commitChained || this.#fatal) return;
    this.#commitChained = true;
    this.#chain(() => {
      this.#commitChained = false;
      return this.#commitTransaction();
    });
  }

  /**
   * Exactly-once: sends `records` with the committable offsets into the open transaction and commits it, then
   * reports the offsets committed.
   */
  async #commitTransaction(records: ProducedRecord[] = []): Promise<void> {
    if (this.#fatal) return;
    const entries = withFinalOffsets(this.#submitted.committableOffsets().offsets, this.#o.task);
    // Sends and commits are chained: every record waiting here joined the transaction this commits.
    const committing = this.#awaitingCommit;
    this.#awaitingCommit = [];
    try {
      await this.#o.transactions!.commit(entries, records);
    } catch (e) {
      this.#failTransaction(e);
      return;
    }
    for (const committed of committing) committed();
    for (const e of entries) this.#committed.set(JSON.stringify(e.partition), e);
    if (entries.length > 0) this.#o.commitOffsets(entries, true);
  }

  #failTransaction(e: unknown): void {
    const id = this.#o.transactions!.transactionalId;
    this.#fatal ??= new Error(`transaction of ${id} failed: ${redact((e as Error).message)}`, { cause: e });
    this.#stop.abort();
  }

  #publishOffsets(): void {
    // Exactly-once: offsets go out only inside their transaction (#commitTransaction).
    if (this.#o.transactions) return;
    const { offsets } = this.#submitted.committableOffsets();
    if (offsets.length > 0) {
      const entries: SourceOffsetEntry[] = offsets.map((e) => ({
        partition: { ...e.partition },
        offset: { ...e.offset },
      }));
      for (const e of entries) this.#committed.set(JSON.stringify(e.partition), e);
      this.#o.commitOffsets(entries);
    }
  }

  async #drain(): Promise<void> {
    while (this.#unsettled.length > 0) await Promise.all(this.#unsettled);
    if (this.#o.transactions) {
      // Each commit already carried the final-offset additions: the open transaction commits as it is.
      if (!this.#fatal) await this.#commitTransaction();
      return;
    }
    this.#publishOffsets();
    // A graceful stop: the task may add to its final offsets what its next run should know (the source's
    // versions sent inside the overlap window), at the positions already committed.
    if (this.#stop.signal.aborted && !this.#fatal && this.#o.task.finalOffsets) {
      const final = this.#o.task.finalOffsets([...this.#committed.values()]);
      if (final.length > 0) this.#o.commitOffsets(final);
    }
  }
}
