/**
 * Kafka transactions (KIP-98) on top of kafkajs 2.2.4, for exactly-once source tasks (KIP-618).
 *
 * Initialised at creation: kafkajs sends the transactional InitProducerId only when the first transaction is
 * opened, not on `connect()` (connect() of an idempotent producer initialises a separate, non-transactional
 * producer id). A producer that has merely connected therefore fences nobody, which is how a second daemon could
 * look started while the first still committed (tests/kafka/transaction_fencing_test.ts shows both cases). So
 * `create` opens a first transaction and ends it at once: the coordinator bumps the id's epoch, aborts the
 * previous owner's open transaction (answering CONCURRENT_TRANSACTIONS, which kafkajs retries, until the abort
 * markers are written) and from then on refuses the previous owner's AddPartitionsToTxn, Produce and EndTxn.
 *
 * Fenced: kafkajs sends InitProducerId, AddPartitionsToTxn and EndTxn at v1 and Produce at v7, so Kafka 4 answers
 * a fenced producer INVALID_PRODUCER_EPOCH (47) rather than PRODUCER_FENCED (90, only for newer request versions;
 * kafkajs's error table stops at 88 and would report it as "Unknown error code 90"). Both become
 * ProducerFencedError, except after a transaction the coordinator aborted on its `transaction.timeout.ms` while
 * Kafka held it (the same answer): that becomes TransactionTimedOutError (open_transaction_clock.ts). Those versions also keep the coordinator on transaction protocol 1 semantics even where
 * the cluster finalised transaction.version=2 (KIP-890 part 2 applies to EndTxn v5+ only): one epoch per producer
 * session, bumped by InitProducerId, which is all the fencing needs.
 *
 * After any failed send or commit kafkajs's transaction state machine stays where it failed (e.g. COMMITTING),
 * so the producer is finished: `begin` rejects with the first failure, and the task starts over with a new one.
 *
 * Hanging transactions: after a broker paused under an open transaction, the old epoch's records can stay on a
 * partition without the coordinator knowing of them (it aborted the transaction, but no marker reached that
 * partition). The partition's last stable offset stays at them, and the next marker of the same producer id
 * decides them: the restarted task's first commit there committed them with its own records, which it sends again
 * (2,909 row versions twice in 1 of 36 runs of the broker-pause fault test; tests/kafka/hanging_transaction_test.ts
 * makes one on purpose). So `create`, given the topics the id wrote before (`closeOn`), looks for partitions of
 * them where a transaction is open once the id is initialised (its own transactions are all decided by then) and
 * sends one record to each in its first transaction, which it aborts: the abort marker, of the new epoch, ends
 * whatever the id had open there as aborted. The record (key `tablesync.fence`, no value, header
 * `tablesync.fence`) is never read with read_committed; another producer's open transaction on such a partition
 * is not touched.
 *
 * Kafka out of reach: a send is retried as a plain producer's is (delivery_retry.ts). Opening (InitProducerId) and
 * adding partitions cannot be retried from outside kafkajs's state machine, so kafkajs itself retries them, as
 * often as fits in delivery.timeout.ms at retry.backoff.max.ms apart, and each call is given up at
 * delivery.timeout.ms. kafkajs sends EndTxn (commit, abort) once: a coordinator away, loading or still busy with
 * the transaction (CONCURRENT_TRANSACTIONS) fails it, which outage.ts counts transient. The task then starts over,
 * and its new producer's InitProducerId completes or aborts the transaction before the offsets are read.
 */
import { type Kafka, type Transaction as KafkajsTransaction } from "kafkajs";
import type { Logger } from "../observability/log.ts";
import { ProducerFencedError, TransactionTimedOutError } from "./errors.ts";
import { KafkajsProducerAdapter, pinningPartitioner } from "./producer.ts";
import { withinDeliveryTimeout } from "./delivery_retry.ts";
import { OpenTransactionClock } from "./open_transaction_clock.ts";
import type { KafkaOutage } from "./outage.ts";
import type {
  ProducedRecord,
  ProducerOptions,
  RecordAck,
  TopicPartition,
  Transaction,
  TransactionalProducer,
} from "./types.ts";

/** First retry backoff of a transactional producer's requests, and the retries added for the shorter start. */
const TRANSACTION_FIRST_BACKOFF_MS = 20;
const TRANSACTION_EXTRA_RETRIES = 4;

/** The record that ends a transaction left open on a partition (see the module comment); always aborted. */
const FENCE_KEY = "tablesync.fence";

function fenceMessages(open: readonly TopicPartition[], transactionalId: string) {
  const byTopic = Map.groupBy(open, (p) => p.topic);
  return [...byTopic].map(([topic, partitions]) => ({
    topic,
    messages: partitions.map(({ partition }) => ({
      partition,
      key: FENCE_KEY,
      value: null,
      headers: { [FENCE_KEY]: transactionalId },
    })),
  }));
}

/** Error types of requests refused because a newer producer holds the transactional id. */
const FENCED_TYPES = new Set(["INVALID_PRODUCER_EPOCH", "PRODUCER_FENCED"]);

/** The fencing error inside `error` (kafkajs wraps it in retry and aggregate errors), or null. */
export function fencedReason(error: unknown, depth = 0): string | null {
  if (error === null || typeof error !== "object" || depth > 5) return null;
  const e = error as { type?: string; message?: string; cause?: unknown; errors?: unknown[] };
  if (e.type && FENCED_TYPES.has(e.type)) return e.type;
  // kafkajs 2.2.4 has no entry for code 90 and reports it as KAFKAJS_UNKNOWN_ERROR_CODE "Unknown error code 90".
  if (e.type === "KAFKAJS_UNKNOWN_ERROR_CODE" && /\b90\b/.test(e.message ?? "")) return "PRODUCER_FENCED";
  for (const inner of [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const reason = fencedReason(inner, depth + 1);
    if (reason) return reason;
  }
  return null;
}

export class KafkajsTransactionalProducer implements TransactionalProducer {
  readonly transactionalId: string;
  readonly #producer: ReturnType<Kafka["producer"]>;
  readonly #settings: ProducerOptions;
  readonly #log: Logger;
  readonly #outage: KafkaOutage | undefined;
  #open: KafkajsTransaction | null = null;
  /** How long the open transaction has been open, and whether this process ran all along. */
  readonly #clock = new OpenTransactionClock();
  /** The first failure; every later call rejects with it. */
  #failure: Error | null = null;
  #closed = false;

  private constructor(
    producer: ReturnType<Kafka["producer"]>,
    transactionalId: string,
    settings: ProducerOptions,
    log: Logger,
    outage: KafkaOutage | undefined,
  ) {
    this.#producer = producer;
    this.transactionalId = transactionalId;
    this.#settings = { ...settings, lingerMs: 0 };
    this.#log = log;
    this.#outage = outage;
  }

  static async create(
    kafka: Kafka,
    transactionalId: string,
    settings: ProducerOptions,
    log: Logger,
    outage?: KafkaOutage,
    /** Partitions (of the topics the id wrote before) where a transaction is open: asked once initialised. */
    openPartitions?: () => Promise<TopicPartition[]>,
  ): Promise<KafkajsTransactionalProducer> {
    const producer = kafka.producer({
      createPartitioner: pinningPartitioner,
      transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: settings.transactionTimeoutMs,
      // Short first backoff: right after a commit, the coordinator is still writing the markers and answers the
      // next transaction's AddPartitionsToTxn with CONCURRENT_TRANSACTIONS for a few milliseconds; kafkajs's
      // default first backoff (300 ms) then cost each transaction about that much (the Java producer retries
      // this case after 20 ms). More retries keep the total retry time about the same.
      retry: {
        retries: Math.min(
          settings.retries,
          Math.ceil(settings.deliveryTimeoutMs / settings.retryBackoffMaxMs),
        ) + TRANSACTION_EXTRA_RETRIES,
        initialRetryTime: TRANSACTION_FIRST_BACKOFF_MS,
        maxRetryTime: settings.retryBackoffMaxMs,
      },
    });
    await producer.connect();
    const created = new KafkajsTransactionalProducer(producer, transactionalId, settings, log, outage);
    try {
      // The InitProducerId that fences older owners (see the module comment). Nothing is added to this
      // transaction (its abort then sends no EndTxn) unless a partition holds a transaction left open.
      const first = await created.#guard(() => producer.transaction());
      const open = (await openPartitions?.()) ?? [];
      if (open.length > 0) {
        await created.#guard(() => first.sendBatch({ topicMessages: fenceMessages(open, transactionalId) }));
        log.info(
          { transactionalId, partitions: open.map((p) => `${p.topic}-${p.partition}`) },
          "aborted what this transactional id may have left open on these partitions",
        );
      }
      await created.#guard(() => first.abort());
    } catch (e) {
      await producer.disconnect().catch(() => {});
      throw e;
    }
    log.debug({ transactionalId }, "transactional producer initialised");
    return created;
  }

  async begin(): Promise<Transaction> {
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw new Error(`the transactional producer "${this.transactionalId}" is closed`);
    if (this.#open) throw new Error(`a transaction of "${this.transactionalId}" is already open`);
    const txn = await this.#guard(() => this.#producer.transaction());
    this.#open = txn;
    this.#clock.start();
    const sender = new KafkajsProducerAdapter(txn, this.#settings, this.#log, this.#outage);
    const end = async (how: "commit" | "abort") => {
      if (this.#open !== txn) throw new Error(`this transaction of "${this.transactionalId}" has ended`);
      try {
        await this.#guard(() => txn[how]());
      } finally {
        this.#open = null;
        this.#clock.stop();
      }
    };
    return {
      send: (records: ProducedRecord[]): Promise<RecordAck[]> => {
        if (this.#open !== txn) {
          return Promise.reject(new Error(`this transaction of "${this.transactionalId}" has ended`));
        }
        return this.#guard(() => sender.send(records));
      },
      commit: () => end("commit"),
      abort: () => end("abort"),
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const open = this.#open;
    this.#open = null;
    this.#clock.stop();
    if (open && !this.#failure) await open.abort().catch(() => {});
    await this.#producer.disconnect();
  }

  /**
   * Runs a kafkajs call; a failure finishes the producer (a fenced one as ProducerFencedError, a timed-out
   * transaction as TransactionTimedOutError).
   */
  async #guard<T>(call: () => Promise<T>): Promise<T> {
    if (this.#failure) throw this.#failure;
    try {
      const result = await withinDeliveryTimeout(call(), this.#settings.deliveryTimeoutMs);
      this.#outage?.reachable();
      return result;
    } catch (e) {
      const reason = fencedReason(e);
      // Refused as fenced while the transaction had been open past the transaction timeout and this process ran
      // all along: the coordinator aborted it on its timeout (open_transaction_clock.ts), and a task restarts.
      const timeoutMs = this.#settings.transactionTimeoutMs;
      this.#failure ??= reason && this.#clock.openPastWhileRunning(timeoutMs)
        ? new TransactionTimedOutError(this.transactionalId, this.#clock.openMs(), timeoutMs, { cause: e })
        : reason
        ? new ProducerFencedError(this.transactionalId, reason, { cause: e })
        : e instanceof Error
        ? e
        : new Error(String(e));
      throw this.#failure;
    }
  }
}
