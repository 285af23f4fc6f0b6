/**
 * The small Connector/Task interface between the runtime and the connectors (Kafka Connect's
 * `SourceConnector`/`SourceTask` and `SinkConnector`/`SinkTask`, cut down to what tablesync needs).
 *
 * Dependencies point one way: `src/source` and `src/sink` implement these interfaces; `src/runtime` drives them
 * and is never imported by a connector.
 *
 * - The connector half (`ConnectorPlugin`) runs in the main thread: it splits a connector's config into task
 *   configs for `tasks.max`.
 * - The task half runs in its own task thread (a Web Worker). The runtime's driver around it does everything else:
 *   transforms, converters, producing/consuming, offset commits, error tolerance and the dead letter queue.
 */
import type { SinkRecord, SourceOffset, SourcePartition, SourceRecord } from "./record.ts";
import type { RawConfig, TypedProps } from "../common/props.ts";
import type { Logger } from "../observability/log.ts";
import type { SnapshotRequest, TableProgress } from "./table_progress.ts";
import type { StateTopic } from "./state_topic.ts";

export type ConnectorKind = "source" | "sink";

/**
 * Kafka Connect's `RetriableException`: a failure that may succeed if the same operation is tried again later
 * (the instance is overloaded, a broker is away). The driver retries `poll`/`put` with backoff instead of failing
 * the task; any other error fails the task with its trace.
 */
export class RetriableException extends Error {
  readonly javaClassName: string = "org.apache.kafka.connect.errors.RetriableException";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RetriableException";
  }
}

/**
 * A fault outside the task (the instance away, answering 503 or a maintenance page) that outlasted the retries
 * `errors.retry.timeout` allows: the task fails with this one message (no stack under it), and the daemon restarts
 * it by itself with backoff, since the fault may be gone by then. An operator need not step in.
 */
export class TransientTaskFailure extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TransientTaskFailure";
    this.stack = message;
  }
}

/** The connector half: runs in the main thread. */
export interface ConnectorPlugin {
  readonly kind: ConnectorKind;
  /** The fully qualified class name (`io.tablesync.TableSourceConnector`). */
  readonly className: string;
  /**
   * Splits a validated connector config into at most `maxTasks` task configs. Each task config is a raw string
   * map (placeholders still unresolved) handed to one task. Returning fewer configs than `maxTasks` is normal
   * (for example fewer tables than tasks): empty tasks are not started.
   */
  taskConfigs(config: RawConfig, props: TypedProps, maxTasks: number): RawConfig[];
  /**
   * A source connector's check of one offset change asked over REST (`PATCH /connectors/<name>/offsets`), as
   * Connect's `SourceConnector.alterOffsets`: what is wrong with it (a 400), or null. A null offset removes it.
   */
  offsetProblem?(partition: SourcePartition, offset: SourceOffset | null): string | null;
}

/** Counters and gauges a task reports; the runtime exposes them on `GET /metrics`. */
export interface TaskMetrics {
  /** Adds `by` (default 1) to a counter. `labels` become Prometheus labels (the task's own are added). */
  increment(name: string, labels?: Record<string, string>, by?: number): void;
  /** Sets a gauge. */
  set(name: string, labels: Record<string, string>, value: number): void;
}

/** What every task gets from the runtime. */
export interface TaskContext {
  readonly connectorName: string;
  readonly taskId: number;
  readonly logger: Logger;
  readonly metrics: TaskMetrics;
  /** Aborted when the task is asked to stop: long waits (poll intervals, backoffs) must end promptly on it. */
  readonly signal: AbortSignal;
  /**
   * The task's standing warnings (its REST status `warnings`): a condition the task rides out while RUNNING,
   * such as an instance that cannot be reached. Each sentence is logged once when it appears and once when it is
   * cleared, not on every retry.
   */
  readonly taskWarnings?: { set(key: string, sentence: string): void; clear(key: string): void };
}

export interface SourceTaskContext extends TaskContext {
  /** The last committed offset of a source partition, as read when the task started (OffsetStorageReader). */
  offset(partition: SourcePartition): SourceOffset | null;
  /**
   * Reports a row the task cannot turn into a record (Connect's ErrantRecordReporter). With
   * `errors.tolerance=all` it is logged, counted and sent to the dead letter queue when one is set, and the
   * promise resolves; otherwise it rejects with an error that fails the task.
   */
  reportBadRow(error: Error, details: { topic: string; key?: string | null; value?: unknown }): Promise<void>;
  /** Publishes where each table stands (`GET /connectors/<name>/tables`); the latest report replaces the last. */
  reportProgress?(tables: TableProgress[]): void;
  /** Opens (creating when missing) a compacted topic of the task's own state with `partitions` partitions. */
  stateTopic?(name: string, partitions: number): Promise<StateTopic>;
  /**
   * Reads `topic` from its start to its end when reading began, each record's key and value decoded with the
   * task's converters (a tombstone's value is null); nothing is committed.
   */
  readTopicValues?(
    topic: string,
    visit: (key: unknown, value: unknown) => void | Promise<void>,
  ): Promise<void>;
}

/** A source partition with its offset: what a task commits, what the offset store keeps and lists over REST. */
export interface SourceOffsetEntry {
  readonly partition: SourcePartition;
  readonly offset: SourceOffset;
}

export interface SourceTask {
  /** `config` is the task config with placeholders resolved; `props` its typed values with defaults applied. */
  start(config: RawConfig, props: TypedProps, context: SourceTaskContext): Promise<void>;
  /**
   * Returns the next records. When none are ready it waits (ending early when `context.signal` aborts) and may
   * return an empty list; the driver calls again at once. Throwing `RetriableException` makes the driver retry
   * after a backoff; any other error fails the task.
   */
  poll(): Promise<SourceRecord[]>;
  /**
   * Connect's `commitRecord`, in a form that lets the record go: called once per record as it is handed to the
   * producer; the callback returned (if any) is called once Kafka acknowledged the record (per partition in
   * order). The driver holds that callback until the ack, not the record and its value (rows are garbage once
   * converted, not a round trip later). Optional.
   */
  whenAcknowledged?(record: SourceRecord): (() => void) | null;
  /**
   * Like `whenAcknowledged`, for what must wait until the record is in its topic for good: the callback returned
   * is called with the ack in at-least-once mode; exactly-once, once the record's transaction committed (never
   * for a transaction that failed), where `whenAcknowledged`'s is called as the record joins it. Optional.
   */
  whenCommitted?(record: SourceRecord): (() => void) | null;
  /**
   * Graceful stop only, after every sent record settled: given the last committed offset of each source
   * partition, returns replacements to commit last (the same position, with what the next run should know).
   * Optional.
   */
  finalOffsets?(committed: readonly SourceOffsetEntry[]): SourceOffsetEntry[];
  /** Starts a reconcile pass of the table `alias` now, if it has passes and none is running. Optional. */
  reconcileNow?(alias: string): void;
  /** Starts a re-snapshot of the table `alias` (src/source/snapshot/), unless one runs. Optional. */
  snapshotNow?(alias: string, request: SnapshotRequest): void;
  /** Releases resources. Called once, after the last `poll` has returned. */
  stop(): Promise<void>;
}

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  /** Next offset to read (last handled + 1), as Kafka commits it. */
  offset: number;
}

export interface SinkTaskContext extends TaskContext {
  /**
   * Aborted when writes already sent to the instance must be abandoned: at once when the task fails or is killed,
   * and late in a graceful stop (after 60 % of task.shutdown.graceful.timeout.ms). Until then a stopping task
   * starts no new write (`signal`) but lets the sent ones finish, so they are committed rather than redelivered: an
   * abandoned create is ambiguous (the row may exist), and its redelivery would create it again.
   */
  readonly writeSignal: AbortSignal;
  /**
   * Reports a record that failed permanently in the task (Connect's ErrantRecordReporter). With
   * `errors.tolerance=all` it goes to the dead letter queue (when one is set) and the promise resolves;
   * otherwise it rejects with an error that fails the task.
   */
  reportRecordError(record: SinkRecord, error: Error): Promise<void>;
}

export interface SinkTask {
  start(config: RawConfig, props: TypedProps, context: SinkTaskContext): Promise<void>;
  /**
   * Takes records (converted and transformed) for writing. It may write them before returning or keep writing
   * in the background; `preCommit` tells the driver how far it got. Throwing `RetriableException` makes the
   * driver redeliver the same records after a backoff; any other error fails the task.
   *
   * The records of one call come from one partition. Calls for different partitions may run concurrently (the
   * driver hands over each partition's batch of a fetch as it comes); calls for one partition never do.
   */
  put(records: SinkRecord[]): Promise<void>;
  /**
   * Given the offsets consumed so far (next offset per partition), returns the offsets that are safe to commit:
   * every record before them is fully handled (written, reported or skipped). The driver commits exactly these.
   */
  preCommit(consumed: TopicPartitionOffset[]): Promise<TopicPartitionOffset[]>;
  /** Partitions are about to be revoked: finish or abandon work on them before the driver's final commit. */
  close?(partitions: { topic: string; partition: number }[]): Promise<void>;
  stop(): Promise<void>;
}
