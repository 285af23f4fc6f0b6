/**
 * Drives a sink task in its task thread (Kafka Connect's WorkerSinkTask):
 *   consumer (group connect-<name>) → converters → transforms → put → preCommit → commit.
 *
 * Offsets committed are exactly what the task's `preCommit` says is fully handled, so another implementation
 * with the same connector name carries on from them. Commits happen every `offset.flush.interval.ms`, before
 * partitions are revoked, and on stop.
 *
 * Topics that do not exist yet (sink_topics.ts) do not fail the task: it waits, RUNNING with a status warning,
 * and consumes each topic once it appears, from the group's committed offsets (or `auto.offset.reset`). When the
 * topics to consume change (one appeared, or a new one matches `topics.regex`), the consumer is replaced: the old
 * one commits and leaves, a new one joins with the new subscription; when every topic it consumed was deleted,
 * the consumer closes and the task waits again.
 */
import type { SinkTask, TopicPartitionOffset } from "../../connect/task_api.ts";
import { RetriableException } from "../../connect/task_api.ts";
import type { SinkRecord } from "../../connect/record.ts";
import type {
  Admin,
  ConsumedBatch,
  ConsumedRecord,
  Consumer,
  KafkaClient,
  Subscription,
  TopicPartition,
} from "../../kafka/mod.ts";
import type { Logger } from "../../observability/log.ts";
import type { MetricsRegistry } from "../../observability/metrics.ts";
import { ConsumerLagGauges } from "./consumer_lag_gauges.ts";
import { isKafkaUnreachable } from "../../kafka/mod.ts";
import type { ErrorHandler } from "../errors/error_handler.ts";
import type { RecordConverters } from "../task/record_bytes.ts";
import { toSinkRecord } from "./sink_record_conversion.ts";
import { PauseGate } from "../task/pause_gate.ts";
import { retryBackoffMs, sleepEndingOnAbort } from "../../common/delay.ts";
import type { RecordTransformer } from "../task/record_transformer.ts";
import { resolveSinkTopics, sameTopics, TOPIC_CHECK_INTERVAL_MS } from "./sink_topics.ts";
import type { TaskWarnings } from "../task/task_warnings.ts";
import { RedeliveryWarning } from "./redelivery_warning.ts";

export interface SinkDriverOptions {
  task: SinkTask;
  kafka: KafkaClient;
  subscription: Subscription;
  groupId: string;
  /** Consumer settings from the worker and `consumer.override.*`. */
  consumerOptions: Record<string, unknown>;
  converters: RecordConverters;
  transforms: RecordTransformer<SinkRecord>;
  errors: ErrorHandler;
  logger: Logger;
  metrics: MetricsRegistry;
  /** KIP-558: called for each topic records were consumed from. */
  onTopic?: (topic: string) => void;
  /** `offset.flush.interval.ms`. */
  commitIntervalMs: number;
  maxRetryBackoffMs?: number;
  /** Where the wait for missing topics shows (the task's status warnings). */
  warnings: Pick<TaskWarnings, "set" | "clear">;
}

/** The key of the sink's warning about missing topics. */
const WAITING_FOR_TOPICS = "sink-topics";

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/** How often a busy batch handler heartbeats (kafkajs throttles to heartbeat.interval.ms itself). */
const HEARTBEAT_WHILE_BUSY_MS = 1000;

/**
 * How many partitions' batches of one fetch are handed to the task at once. Connect's WorkerSinkTask hands every
 * partition's records of a poll to one `put`; handing each partition's batch to its own `put`, concurrently,
 * has the same effect (records of different partitions are written together, so the task's writes in flight
 * do not drain at the end of each partition's batch), while each partition's batches still come one after
 * another, in order.
 */
const CONCURRENT_PARTITIONS = 32;

export class SinkDriver {
  #o: SinkDriverOptions;
  #consumer: Consumer | null = null;
  #gate = new PauseGate();
  #stop = new AbortController();
  /** Next offset to read per partition: everything before it has been given to the task. */
  #consumed = new Map<string, TopicPartitionOffset>();
  readonly #lag: ConsumerLagGauges;
  /** What was last committed per partition, to skip redundant commits. */
  #committed = new Map<string, number>();
  #lastCommit = Date.now();
  #done!: Promise<void>;
  #finish!: (error?: Error) => void;
  #committing: Promise<void> = Promise.resolve();
  /** The batches being handled (one per partition at most). */
  #handling = new Set<Promise<void>>();
  /** Consumed records not yet committed past, per partition: the dead letter queue gets their original bytes. */
  #raw = new Map<string, ConsumedRecord[]>();
  /** Lists the cluster's topics (opened on first use). */
  #admin: Admin | null = null;
  /** The topics the current consumer subscribes to. */
  #topics: string[] = [];
  /** A consumer being replaced (see #followTopics); stopping waits for it. */
  #switching: Promise<void> = Promise.resolve();
  #timers: ReturnType<typeof setInterval>[] = [];
  readonly #onStop = () => void this.#stopGracefully(); // stop() once the consumer runs
  readonly #redelivery: RedeliveryWarning;

  constructor(options: SinkDriverOptions) {
    this.#o = options;
    this.#redelivery = new RedeliveryWarning(options.logger, options.warnings);
    this.#lag = new ConsumerLagGauges(options.metrics);
    this.#done = new Promise<void>((resolve, reject) => {
      this.#finish = (error?: Error) => error ? reject(error) : resolve();
    });
  }

  pause(): void {
    this.#gate.pause();
    this.#consumer?.pause(this.#consumer.assignment());
  }

  resume(): void {
    this.#gate.resume();
    this.#consumer?.resume(this.#consumer.assignment());
  }

  stop(): void {
    this.#stop.abort();
    this.#gate.resume();
  }

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** The record as consumed (original bytes), while it is not yet committed past. */
  rawRecord(topic: string, partition: number, offset: number): ConsumedRecord | undefined {
    const list = this.#raw.get(tpKey(topic, partition));
    if (!list || list.length === 0) return undefined;
    const index = offset - list[0].offset;
    const candidate = list[index];
    return candidate?.offset === offset ? candidate : list.find((r) => r.offset === offset);
  }

  /** Runs until stopped (resolves after the final commit) or failed (rejects). */
  async run(): Promise<void> {
    const o = this.#o;
    try {
      const topics = await this.#untilTopicsExist();
      if (topics === null) return this.#halt(); // stopped while waiting: nothing was consumed
      this.#consumer = await this.#createConsumer(topics);
    } catch (e) {
      this.#halt();
      throw e;
    }
    // Commit on a timer too, so the tail of a burst is committed without waiting for the next batch.
    this.#timers.push(setInterval(() => {
      this.#commitOrDefer().catch((e) => o.logger.warn({ err: e }, "periodic offset commit failed"));
    }, o.commitIntervalMs));
    this.#stop.signal.addEventListener("abort", this.#onStop, { once: true });
    if (this.#stop.signal.aborted) this.#onStop();
    await this.#runConsumer(this.#consumer);
    if (this.#stop.signal.aborted) return this.#done; // stopped (or failed) while joining: nothing to follow
    let following = false;
    this.#timers.push(setInterval(() => {
      if (following) return; // the previous check is still replacing the consumer
      following = true;
      this.#switching = this.#followTopics().catch((e) => this.#fail(e as Error)).finally(() =>
        following = false
      );
    }, TOPIC_CHECK_INTERVAL_MS));
    return this.#done;
  }

  /** The topics to consume once at least one exists; null when stopped before. */
  async #untilTopicsExist(): Promise<string[] | null> {
    for (;;) {
      if (this.#stop.signal.aborted) return null;
      this.#admin ??= await this.#o.kafka.admin();
      const resolved = resolveSinkTopics(this.#o.subscription, await this.#admin.listTopics());
      this.#noteWaiting(resolved.waiting);
      if (resolved.topics.length > 0) return resolved.topics;
      await sleepEndingOnAbort(TOPIC_CHECK_INTERVAL_MS, this.#stop.signal);
    }
  }

  #noteWaiting(waiting: string | null): void {
    if (waiting) this.#o.warnings.set(WAITING_FOR_TOPICS, waiting);
    else this.#o.warnings.clear(WAITING_FOR_TOPICS);
  }

  /** Checks the subscription again; when the topics to consume changed, replaces the consumer. */
  async #followTopics(): Promise<void> {
    if (this.#stop.signal.aborted || !this.#admin) return;
    let existing: string[];
    try {
      existing = await this.#admin.listTopics();
    } catch (e) {
      this.#o.logger.debug({ err: e }, "listing topics failed; checking again later");
      return;
    }
    const resolved = resolveSinkTopics(this.#o.subscription, existing);
    this.#noteWaiting(resolved.waiting);
    if (sameTopics(resolved.topics, this.#topics)) return;
    // All deleted: the consumer closes (kafkajs would restart it every 300 ms, with a trace) and the task waits.
    const next = resolved.topics;
    this.#o.logger.info({ topics: next }, next.length ? `consuming topics ${next}` : "no topic left");
    try {
      await Promise.all(this.#handling);
      await this.#consumer?.close();
      this.#consumer = null;
      await this.#forgetAll();
      this.#topics = next;
      if (this.#stop.signal.aborted || next.length === 0) return;
      this.#consumer = await this.#createConsumer(next);
      await this.#runConsumer(this.#consumer);
    } catch (e) {
      if (!this.#stop.signal.aborted) this.#fail(e as Error);
    }
  }

  #createConsumer(topics: string[]): Promise<Consumer> {
    const o = this.#o;
    this.#topics = topics;
    let consumer: Consumer | null = null;
    const created = o.kafka.consumer({ topics }, { ...o.consumerOptions, groupId: o.groupId }, {
      onPartitionsAssigned: (partitions) => {
        // A rebalance while paused must not resume fetching the newly assigned partitions.
        if (this.#gate.paused) consumer?.pause(partitions);
      },
      onPartitionsRevoked: async (partitions) => {
        await o.task.close?.(partitions);
        await this.#commit();
        this.#forget(partitions);
      },
    });
    return created.then((c) => consumer = c);
  }

  /** Drops what is known of partitions no longer consumed here, what was last committed for them too. */
  #forget(partitions: readonly TopicPartition[]): void {
    for (const p of partitions) {
      const key = tpKey(p.topic, p.partition);
      this.#consumed.delete(key);
      this.#committed.delete(key);
      this.#raw.delete(key);
      this.#lag.unset(p.topic, p.partition);
    }
  }

  /**
   * After a consumer closed: a deleted topic's partitions may have left its assignment first, unrevoked. Kept,
   * they would meet a topic created again with that name (a commit equal to the old offset skipped, so redelivered).
   */
  async #forgetAll(): Promise<void> {
    const keys = new Set([...this.#consumed.keys(), ...this.#committed.keys(), ...this.#raw.keys()]);
    const known = [...keys].map((key) => key.split("\u0000")).map(([topic, p]) => ({ topic, partition: +p }));
    if (known.length > 0) await this.#o.task.close?.(known);
    this.#forget(known);
  }

  async #runConsumer(consumer: Consumer): Promise<void> {
    await consumer.run(async (batch, ctx) => {
      // Keep group membership alive while a batch waits (pause, instance outage with redelivery backoff).
      const heartbeat = setInterval(() => ctx.heartbeat().catch(() => {}), HEARTBEAT_WHILE_BUSY_MS);
      const work = this.#handle(batch, ctx.isRunning);
      const settled = work.then(() => {}, () => {});
      this.#handling.add(settled);
      void settled.then(() => this.#handling.delete(settled));
      try {
        await work;
      } catch (e) {
        // Stopping: the batch is abandoned and nothing past it is committed, so it is redelivered later.
        if (this.#stop.signal.aborted) return;
        // A non-retriable failure fails the task; nothing past the failed record is committed.
        this.#fail(e as Error);
        throw e;
      } finally {
        clearInterval(heartbeat);
      }
    }, { concurrentPartitions: CONCURRENT_PARTITIONS });
    if (this.#gate.paused) consumer.pause(consumer.assignment());
  }

  /**
   * The sink's graceful stop: timers end, a consumer being replaced settles, the batches being written finish (the
   * stop budget, herder/task_stop_budget.ts, bounds them) so closing the consumer commits them; then run() settles.
   */
  async #stopGracefully(): Promise<void> {
    this.#halt();
    try {
      await this.#switching;
      await Promise.all(this.#handling);
      await this.#consumer?.close();
      this.#finish();
    } catch (e) {
      this.#finish(e as Error);
    }
  }

  /** Stops the timers (commits, topic checks) and closes the admin client. */
  #halt(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    this.#admin?.close().catch(() => {});
    this.#admin = null;
  }

  /** The task fails: nothing more is consumed or committed. */
  #fail(error: Error): void {
    this.#halt();
    this.#lag.clear();
    this.#stop.signal.removeEventListener("abort", this.#onStop);
    this.#stop.abort();
    this.#consumer?.close().catch(() => {});
    this.#finish(error);
  }

  async #handle(batch: ConsumedBatch, isRunning: () => boolean): Promise<void> {
    await this.#gate.wait();
    this.#lag.set(batch.topic, batch.partition, batch.highWatermark, batch.records[0].offset);
    const key = tpKey(batch.topic, batch.partition);
    const kept = this.#raw.get(key) ?? [];
    kept.push(...batch.records);
    this.#raw.set(key, kept);
    const records: SinkRecord[] = [];
    for (const consumed of batch.records) {
      const record = await toSinkRecord(consumed, this.#o);
      if (record) records.push(record);
    }
    this.#o.metrics.increment(
      "tablesync_sink_records_consumed_total",
      { topic: batch.topic },
      batch.records.length,
    );
    this.#o.onTopic?.(batch.topic);
    for (let attempt = 1; records.length > 0; attempt++) {
      try {
        await this.#o.task.put(records);
        break;
      } catch (e) {
        // Stopping, with writes abandoned: the records the task handled before them are committed on close
        // (preCommit stops at the first one not handled), not redelivered, a create among them made twice.
        if (e instanceof RetriableException && this.#stop.signal.aborted) break;
        if (!(e instanceof RetriableException) || !isRunning()) throw e;
        const wait = retryBackoffMs(attempt, this.#o.maxRetryBackoffMs ?? 30000);
        this.#redelivery.redelivering(key, e as Error, attempt, wait);
        await sleepEndingOnAbort(wait, this.#stop.signal);
      }
    }
    this.#redelivery.delivered(key);
    const last = batch.records[batch.records.length - 1];
    this.#consumed.set(tpKey(batch.topic, batch.partition), {
      topic: batch.topic,
      partition: batch.partition,
      offset: last.offset + 1,
    });
    this.#lag.set(batch.topic, batch.partition, batch.highWatermark, last.offset + 1);
    if (Date.now() - this.#lastCommit >= this.#o.commitIntervalMs) await this.#commitOrDefer();
  }

  /**
   * Commits, or leaves it to a later commit when Kafka is out of reach (its outage already shown once): the records
   * written stay uncommitted until it is back, as after Connect's failed commitAsync; redelivered meanwhile, they
   * are written again, never skipped. Other failures reject.
   */
  async #commitOrDefer(): Promise<void> {
    try {
      await this.#commit();
    } catch (e) {
      if (!isKafkaUnreachable(e)) throw e;
      this.#o.logger.debug({ err: e }, "offset commit deferred: Kafka out of reach");
    }
  }

  /** Commits what the task says is safe. Serialised, so commits never overtake each other. */
  #commit(): Promise<void> {
    this.#committing = this.#committing.catch(() => {}).then(async () => {
      this.#lastCommit = Date.now();
      if (this.#consumed.size === 0 || !this.#consumer) return;
      const safe = await this.#o.task.preCommit([...this.#consumed.values()]);
      const changed = safe.filter((s) => this.#committed.get(tpKey(s.topic, s.partition)) !== s.offset);
      if (changed.length === 0) return;
      const started = performance.now();
      await this.#consumer.commit(changed);
      this.#o.metrics.observe(
        "tablesync_kafka_offset_commit_duration_seconds",
        {},
        (performance.now() - started) / 1000,
      );
      for (const s of changed) {
        const key = tpKey(s.topic, s.partition);
        this.#committed.set(key, s.offset);
        const kept = this.#raw.get(key);
        if (kept) this.#raw.set(key, kept.filter((r) => r.offset >= s.offset));
      }
    });
    return this.#committing;
  }
}
