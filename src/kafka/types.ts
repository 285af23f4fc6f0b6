/**
 * The Kafka interface the daemon codes against.
 *
 * Nothing outside src/kafka/ imports the client library: callers see only these shapes, so the kafkajs
 * implementation can be swapped (e.g. for @platformatic/kafka) without touching sources, sinks or the REST API.
 *
 * Conventions:
 *  - Offsets are JavaScript numbers (safe up to 2^53, far beyond any real partition's offsets).
 *  - A committed offset is Kafka's "next offset to read" (last processed offset + 1), as in the Java client.
 *  - Keys, values and header values are raw bytes; converters live elsewhere (src/connect/).
 *  - Every record handed out or accepted carries its timestamp in epoch milliseconds.
 */

/** A header value as given by a producer caller; strings are sent as UTF-8. */
export type HeaderValue = Uint8Array | string;

/** Record headers. Kafka allows repeated keys; this interface keeps the last value of each key. */
export type RecordHeaders = Record<string, HeaderValue>;

/** A record to produce. */
export interface ProducedRecord {
  topic: string;
  /** Explicit partition; when absent the Java-compatible default partitioner picks one (murmur2 of the key, else round robin). */
  partition?: number;
  key: Uint8Array | null;
  /** null = tombstone. */
  value: Uint8Array | null;
  headers?: RecordHeaders;
  /** Epoch ms; defaults to the send time. */
  timestamp?: number;
}

/** Acknowledgement of one produced record: where it was written. */
export interface RecordAck {
  topic: string;
  partition: number;
  /** The record's offset; -1 when `acks` is 0 (the broker does not answer, so the offset is unknown). */
  offset: number;
}

/** A record delivered to a consumer. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: number;
  /** Epoch ms (CreateTime or LogAppendTime, as the topic is configured). */
  timestamp: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  /** Header values are always bytes on the consuming side. */
  headers: Record<string, Uint8Array>;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface TopicPartitionOffset extends TopicPartition {
  /** For commits: the next offset to read. For seeks: the next offset to deliver. */
  offset: number;
}

/** Low and high watermark of one partition: the first available offset and the offset the next record will get. */
export interface PartitionWatermarks {
  partition: number;
  low: number;
  high: number;
}

/** All records fetched for one partition in one round; delivered to `Consumer.run`'s handler. */
export interface ConsumedBatch {
  topic: string;
  partition: number;
  /** Ordered by offset, never empty. */
  records: ConsumedRecord[];
  /** Offset of the next record the broker will append to this partition at fetch time (for lag). */
  highWatermark: number;
}

/** Context given to each batch handler call. */
export interface BatchContext {
  /** Keeps group membership alive during long processing; call it between slow steps. */
  heartbeat(): Promise<void>;
  /** False once `close()` has begun: stop processing and return. */
  isRunning(): boolean;
}

export type BatchHandler = (batch: ConsumedBatch, context: BatchContext) => Promise<void>;

/**
 * Group rebalance callbacks (Java's ConsumerRebalanceListener). Both are awaited by the consumer:
 *  - `onPartitionsRevoked` runs before the consumer rejoins the group (eager protocol: everything it held) and on
 *    `close()`, while the member still owns the partitions and may commit; no batch is in flight when it runs.
 *  - `onPartitionsAssigned` runs after a join with the new assignment, before fetching starts.
 */
export interface RebalanceListener {
  onPartitionsAssigned?(partitions: TopicPartition[]): Promise<void> | void;
  onPartitionsRevoked?(partitions: TopicPartition[]): Promise<void> | void;
}

export type Acks = -1 | 0 | 1;
export type CompressionType = "none" | "gzip" | "snappy" | "lz4" | "zstd";

export interface SaslOptions {
  mechanism: "plain" | "scram-sha-256" | "scram-sha-512";
  username: string;
  /** Registered with the redaction layer when parsed; never logged. */
  password: string;
}

export interface TlsOptions {
  /** PEM CA certificates to trust (in addition to none: when set, only these are trusted). */
  ca?: string[];
  /** PEM client certificate chain for mutual TLS. */
  cert?: string;
  /** PEM private key for mutual TLS. */
  key?: string;
  /** Passphrase of an encrypted `key`. */
  passphrase?: string;
  /** `ssl.endpoint.identification.algorithm` empty → false. Default true. */
  checkServerIdentity?: boolean;
}

/** Connection options shared by producers, consumers and admins of one cluster. */
export interface KafkaConnectionOptions {
  /** host:port list (`bootstrap.servers`). */
  brokers: string[];
  /** `client.id`; default "tablesync". */
  clientId: string;
  /** Present for SSL / SASL_SSL. */
  tls?: TlsOptions;
  /** Present for SASL_PLAINTEXT / SASL_SSL. */
  sasl?: SaslOptions;
  /** `request.timeout.ms`; default 30000. */
  requestTimeoutMs: number;
  /** `socket.connection.setup.timeout.ms`; default 10000 (the Java default; kafkajs's 1000 is too tight for TLS). */
  connectionTimeoutMs: number;
}

export interface ProducerOptions {
  /** `acks` (all → -1); default -1, as Kafka Connect forces for source tasks. */
  acks: Acks;
  /** `compression.type`; default "none". snappy/lz4/zstd need codecs kafkajs does not bundle → rejected at mapping. */
  compression: CompressionType;
  /**
   * `linger.ms`: how long `send` waits for other `send` calls to join the same request; default 0 (send at once).
   * kafkajs has no linger of its own, so our producer implements it.
   */
  lingerMs: number;
  /** `batch.size` in bytes: a lingering request is sent as soon as its records reach this size; default 16384. */
  batchSizeBytes: number;
  /**
   * `max.request.size`: a `send` larger than this is written as several requests of at most this size (a single
   * record larger than it still goes alone), one after the other, so per-partition order holds. Default 1000000
   * (just under the broker's default message.max.bytes, leaving room for framing). Also bounds the encoding
   * buffers kafkajs allocates per request (several copies of the request).
   */
  maxRequestBytes: number;
  /**
   * `retries`: at most this many retries of a send that could not reach the cluster; default unbounded (Java's
   * default): only `deliveryTimeoutMs` ends the retries.
   */
  retries: number;
  /**
   * `delivery.timeout.ms`: how long a send is retried while Kafka is out of reach (a broker restarting, hung or
   * cut off) before it fails; default 120000 (Java's default).
   */
  deliveryTimeoutMs: number;
  /** `retry.backoff.ms`: the first backoff between retries; default 100 (Java's default). */
  retryBackoffMs: number;
  /** `retry.backoff.max.ms`: the longest backoff between retries; default 1000 (Java's default). */
  retryBackoffMaxMs: number;
  /**
   * `transaction.timeout.ms`: how long the transaction coordinator lets a transaction stay open before it aborts
   * it and fences its producer (transactional producers only); default 60000 (Java's default). The broker refuses
   * values above its `transaction.max.timeout.ms` (default 900000).
   */
  transactionTimeoutMs: number;
}

export interface ConsumerOptions {
  /** `group.id` (Kafka Connect sinks: `connect-<name>`). */
  groupId: string;
  /** `session.timeout.ms`; default 45000 (Java default). Must exceed 3000 against the librdkafka mock. */
  sessionTimeoutMs: number;
  /** `heartbeat.interval.ms`; default 3000. */
  heartbeatIntervalMs: number;
  /** `max.poll.interval.ms` (used as the rebalance timeout); default 300000. */
  rebalanceTimeoutMs: number;
  /** `auto.offset.reset` for partitions without a committed offset; default "earliest" (Connect's sink default). */
  autoOffsetReset: "earliest" | "latest";
  /** `fetch.max.wait.ms`; default 500. */
  fetchMaxWaitMs: number;
  /** `max.partition.fetch.bytes`; default 1048576. */
  maxPartitionFetchBytes: number;
  /** `fetch.max.bytes`; default 52428800. */
  fetchMaxBytes: number;
  /** `isolation.level` read_committed; default false (read_uncommitted, as Java). */
  readCommitted: boolean;
}

export interface Producer {
  /**
   * Sends records (any mix of topics) and resolves with one ack per record, in input order, once the broker
   * acknowledged all of them. Rejects if any part of the request failed after retries: then some records may
   * have been written (at-least-once); the caller must not treat any of them as acknowledged.
   */
  send(records: ProducedRecord[]): Promise<RecordAck[]>;
  /** Sends whatever is lingering and waits until every pending `send` has settled. */
  flush(): Promise<void>;
  /** Flushes, then disconnects. Idempotent. */
  close(): Promise<void>;
}

/**
 * One open Kafka transaction (KIP-98): what it sends becomes visible to read_committed consumers only when
 * `commit` succeeds, and never when it is aborted or its producer is fenced.
 */
export interface Transaction {
  /** As `Producer.send`, inside the transaction: the acks give offsets that count only once committed. */
  send(records: ProducedRecord[]): Promise<RecordAck[]>;
  /**
   * Commits everything sent; rejects with ProducerFencedError when a newer producer took the transactional id, or
   * TransactionTimedOutError when the broker aborted the transaction on its transaction.timeout.ms.
   */
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * A producer with a transactional id (transactional_producer.ts). Creating it initialises the id at once, which
 * fences every older producer with the same id (their open transaction is aborted, their next request refused),
 * so a task that moved can never have its previous owner commit after the new owner started.
 */
export interface TransactionalProducer {
  readonly transactionalId: string;
  /** Opens the next transaction; one at a time. Rejects with the producer's first failure once it failed. */
  begin(): Promise<Transaction>;
  /** Aborts an open transaction (best effort) and disconnects. Idempotent. */
  close(): Promise<void>;
}

export type Subscription = { topics: string[] } | { pattern: RegExp };

export interface Consumer {
  /**
   * Joins the group and delivers batches to `handler` until `close()`. Resolves once the consumer has joined and
   * started fetching. A handler error is retried by re-delivering the same batch (kafkajs retry); if retries
   * run out the consumer stops and `onCrash` (see createConsumer) is called.
   *
   * `concurrentPartitions` (default 1): how many partitions' batches of one fetch the handler gets at once.
   * Batches of one partition are never handled concurrently, so each partition's order holds; the next fetch
   * starts once every batch of the current one is handled.
   */
  run(
    handler: BatchHandler,
    options?: {
      concurrentPartitions?: number;
      /**
       * After each fetched batch of a partition, handled or not: the next offset past it (past transaction markers
       * and aborted records too, which no handler sees), so a reader can tell it reached an end offset.
       */
      onPosition?: (position: TopicPartitionOffset) => void;
    },
  ): Promise<void>;
  /** Commits the given next-offsets to the group (no auto commit ever happens). */
  commit(offsets: TopicPartitionOffset[]): Promise<void>;
  /** Stops fetching the given partitions until resumed (membership is kept). */
  pause(partitions: TopicPartition[]): void;
  resume(partitions: TopicPartition[]): void;
  /** Next fetch of the partition starts at `offset`. Only valid while running and assigned. */
  seek(position: TopicPartitionOffset): void;
  /** Partitions currently assigned to this member. */
  assignment(): TopicPartition[];
  /** Calls `onPartitionsRevoked` for the current assignment, leaves the group, disconnects. Idempotent. */
  close(): Promise<void>;
}

export interface CreateTopicOptions {
  /** -1 = broker default. */
  partitions: number;
  /** -1 = broker default. */
  replicationFactor: number;
  /** Topic-level configs, e.g. `{ "cleanup.policy": "compact" }`. */
  configs?: Record<string, string>;
}

export interface CommittedOffset extends TopicPartitionOffset {
  metadata?: string | null;
}

export interface Admin {
  clusterId(): Promise<string>;
  listTopics(): Promise<string[]>;
  topicExists(name: string): Promise<boolean>;
  /** Partition ids of an existing topic, ascending; throws UnknownTopicError when it does not exist. */
  partitionsFor(topic: string): Promise<number[]>;
  /**
   * Each partition's first offset and, as `high`, its last stable offset: where a read_committed consumer ends (the
   * first offset of the oldest transaction still open, else the high watermark).
   */
  fetchTopicOffsets(topic: string): Promise<PartitionWatermarks[]>;
  /** Each partition's high watermark, open transactions' records included (ListOffsets read_uncommitted). */
  fetchHighWatermarks(topic: string): Promise<Map<number, number>>;
  /** Committed offsets of a group (only partitions that have one). `topics` narrows the lookup. */
  fetchCommittedOffsets(groupId: string, topics?: string[]): Promise<CommittedOffset[]>;
  /**
   * Alters committed offsets of a group with no active members (KIP-875 PATCH/DELETE of sink offsets).
   * `offset: -1` deletes the partition's committed offset semantics-wise (consumers fall back to auto.offset.reset)
   * where the broker supports it; see admin.ts for the exact strategy.
   */
  setCommittedOffsets(groupId: string, offsets: TopicPartitionOffset[]): Promise<void>;
  /**
   * Creates a topic; resolves false if it already exists. Throws TopicCreationUnsupportedError when the cluster
   * cannot create topics through the API (e.g. the librdkafka mock), so the caller can fall back or report.
   */
  createTopic(name: string, options: CreateTopicOptions): Promise<boolean>;
  /**
   * One metadata request for `name` that allows the broker to auto-create it (as a producer's first send does):
   * the broker's `auto.create.topics.enable` decides. See TopicAvailability.
   */
  requestTopic(name: string): Promise<TopicAvailability>;
  /** The topic's configs as the broker reports them (DescribeConfigs), broker defaults included. */
  topicConfigs(name: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * What a metadata request that allows auto-creation says of a topic: `available` (exists, leaders serve),
 * `pending` (being created, or leaders not elected yet), `missing` (UNKNOWN_TOPIC_OR_PARTITION: the broker does
 * not auto-create it), `unauthorized` (TOPIC_AUTHORIZATION_FAILED).
 */
export type TopicAvailability = "available" | "pending" | "missing" | "unauthorized";

/** Settings of a worker group's membership (see group_membership.ts). */
export interface GroupMembershipOptions {
  /** The group (`group.id`). */
  groupId: string;
  /** An existing topic to subscribe to; the coordinator wants a subscription, nothing of it is fetched. */
  topic: string;
  /** The group protocol's name; every member of the group must use the same. */
  protocol: string;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  rebalanceTimeoutMs: number;
}

/** What this member learnt from one completed join. */
export interface GroupAssignment {
  /** The bytes the leader's `assign` gave this member (empty when it gave none). */
  assignment: Uint8Array;
  memberId: string;
  generation: number;
  leader: boolean;
}

/** The member's side of the group protocol; every callback is awaited before the membership goes on. */
export interface GroupMembershipHandler {
  /** This member's metadata for the next JoinGroup. */
  metadata(): Uint8Array;
  /** Leader only: every member's metadata → each member's assignment bytes, keyed by member id. */
  assign(members: { memberId: string; metadata: Uint8Array }[]): Promise<Map<string, Uint8Array>>;
  /** Before every JoinGroup (first join, rebalance, rejoin after losing membership). */
  onJoinStart?(): Promise<void>;
  /** After every completed join, with this member's assignment. */
  onAssigned(assignment: GroupAssignment): Promise<void>;
  /** No heartbeat succeeded within the session timeout: the group may have given this member's work away. */
  onLost(reason: string): void;
}

export interface GroupMembership {
  /** Joins the group; resolves once the first assignment was handled. */
  start(): Promise<void>;
  /** Asks the coordinator for a new rebalance (within about one heartbeat). */
  requestRejoin(): void;
  /** This member's id in the current generation; null before the first join. */
  memberId(): string | null;
  /** Leaves the group (a rebalance follows at once for the others) and disconnects. Idempotent. */
  close(): Promise<void>;
}

/** Everything a caller needs for one cluster; produced by `createKafka(options)` in client.ts. */
export interface KafkaClient {
  readonly connection: KafkaConnectionOptions;
  /** A producer (producer.ts). */
  producer(options?: Partial<ProducerOptions>): Promise<Producer>;
  /**
   * A group consumer (consumer.ts). `onCrash`: called when it stops delivering after an error, instead of the
   * client's `onConsumerCrash` (a reader that fails its read by itself rather than its task).
   */
  consumer(
    subscription: Subscription,
    options: Partial<ConsumerOptions> & { groupId: string; onCrash?: (error: Error) => void },
    listener?: RebalanceListener,
  ): Promise<Consumer>;
  admin(): Promise<Admin>;
  /**
   * A transactional producer for `transactionalId`, initialised (older producers of the id fenced, their open
   * transaction aborted) before it resolves.
   */
  transactionalProducer(
    transactionalId: string,
    options?: Partial<ProducerOptions>,
    /**
     * Topics this id wrote before: once initialised, the producer aborts any transaction of its own still open on
     * their partitions (see transactional_producer.ts, "Hanging transactions").
     */
    closeOn?: readonly string[],
  ): Promise<TransactionalProducer>;
  /**
   * Fences the transactional ids (Kafka's Admin.fenceProducers): initialises each, so every producer that held
   * one before is refused from then on and its open transaction is aborted; resolves once all are fenced.
   */
  fenceProducers(transactionalIds: string[]): Promise<void>;
  /** Membership in a worker group; call `start()` to join. */
  groupMembership(options: GroupMembershipOptions, handler: GroupMembershipHandler): GroupMembership;
}
