/**
 * An exactly-once source task's transactions (KIP-618): its records and, at each boundary, their source offsets,
 * written in one Kafka transaction, so an offset is committed only with the records before it and a read_committed
 * consumer sees each record once, whatever instant the task dies at.
 *
 * The offsets go to the offsets topic on the records' cluster in Kafka Connect's format (key
 * `["<connector>",{partition}]`, value the offset JSON, null a tombstone), partitioned by the key's murmur2 hash as
 * the topic store writes them, so every reader (ours, a Java Connect worker's) finds them.
 *
 * Boundaries (`transaction.boundary`): `poll` commits after each send of the driver (the records of one poll, or of
 * the polls that piled up while the previous transaction committed); `interval` keeps a transaction open across
 * sends until `intervalMs` passed since it began.
 */
import type { ProducedRecord, RecordAck, Transaction, TransactionalProducer } from "../../kafka/mod.ts";
import { serializeOffsetKey, serializeOffsetValue } from "../offsets/offset_key.ts";
import type { OffsetUpdate } from "../offsets/types.ts";
import type { SourceOffsetEntry, SourceTask } from "../../connect/task_api.ts";

export type TransactionBoundary = "poll" | "interval";

export interface SourceTransactionsOptions {
  readonly producer: TransactionalProducer;
  /** Where this connector's offsets are written: its own `offsets.storage.topic`, else the worker's. */
  readonly offsetsTopic: string;
  readonly connector: string;
  readonly boundary: TransactionBoundary;
  /** `transaction.boundary.interval.ms` (interval boundary only). */
  readonly intervalMs: number;
}

export class SourceTransactions {
  readonly #o: SourceTransactionsOptions;
  #open: Transaction | null = null;
  #openedAt = 0;
  #encoder = new TextEncoder();

  constructor(options: SourceTransactionsOptions) {
    this.#o = options;
  }

  get transactionalId(): string {
    return this.#o.producer.transactionalId;
  }

  /** A transaction is open (records sent, not yet committed). */
  get isOpen(): boolean {
    return this.#open !== null;
  }

  /** Whether the boundary says the open transaction should commit now. */
  due(now = Date.now()): boolean {
    if (this.#open === null) return false;
    return this.#o.boundary === "poll" || now - this.#openedAt >= this.#o.intervalMs;
  }

  /** Whether the transaction the next send goes into should commit right after it. */
  dueAfterSend(now = Date.now()): boolean {
    return this.#o.boundary === "poll" || (this.#open !== null && now - this.#openedAt >= this.#o.intervalMs);
  }

  /** Sends records in the open transaction (opening one when none is). */
  async send(records: ProducedRecord[]): Promise<RecordAck[]> {
    return (await this.#current()).send(records);
  }

  /**
   * Sends `offsets` and `records` into the open transaction, opening one when none is, and commits it. Nothing to
   * do when there is neither an open transaction nor anything to send. Rejects (ProducerFencedError when fenced,
   * TransactionTimedOutError when the broker timed it out) if the transaction did not commit: then nothing of it counts.
   *
   * The offsets go first: a send of a page's records is split into requests of max.request.size, and kafkajs adds
   * each request's new partitions to the transaction (AddPartitionsToTxn) before producing it. In the first
   * request, the offsets partition joins the records' partitions in that one AddPartitionsToTxn; in the last, it
   * cost a FindCoordinator and an AddPartitionsToTxn of its own per transaction. Nothing of a transaction is
   * visible before its commit, so the order does not matter to readers.
   */
  async commit(offsets: readonly OffsetUpdate[], records: readonly ProducedRecord[] = []): Promise<void> {
    if (this.#open === null && offsets.length === 0 && records.length === 0) return;
    const txn = await this.#current();
    this.#open = null;
    const all = [...offsets.map((o) => this.#offsetRecord(o)), ...records];
    if (all.length > 0) await txn.send(all);
    await txn.commit();
  }

  /** Aborts an open transaction (best effort) and closes the producer. */
  async close(): Promise<void> {
    this.#open = null;
    await this.#o.producer.close();
  }

  async #current(): Promise<Transaction> {
    if (this.#open === null) {
      this.#open = await this.#o.producer.begin();
      this.#openedAt = Date.now();
    }
    return this.#open;
  }

  #offsetRecord({ partition, offset }: OffsetUpdate): ProducedRecord {
    return {
      topic: this.#o.offsetsTopic,
      key: this.#encoder.encode(serializeOffsetKey(this.#o.connector, partition)),
      value: offset === null ? null : this.#encoder.encode(serializeOffsetValue(offset)),
    };
  }
}

/**
 * Copies of the committable offsets, with the task's final-offset additions (the versions sent inside each
 * table's overlap window): committed with every transaction, so that after a crash the re-read of the overlap
 * finds them sent, as after a graceful stop.
 */
export function withFinalOffsets(
  committable: readonly SourceOffsetEntry[],
  task: Pick<SourceTask, "finalOffsets">,
): SourceOffsetEntry[] {
  const entries = committable.map((e) => ({ partition: { ...e.partition }, offset: { ...e.offset } }));
  if (entries.length === 0 || !task.finalOffsets) return entries;
  const at = new Map(entries.map((e, i) => [JSON.stringify(e.partition), i]));
  for (const replacement of task.finalOffsets(entries)) {
    const i = at.get(JSON.stringify(replacement.partition));
    if (i !== undefined) entries[i] = replacement;
  }
  return entries;
}
