/**
 * `createKafka(connection)`: the entry point that builds producers, consumers and admins for one cluster.
 *
 * Importing this module installs the kafkajs patches (idle busy-loop fix, awaitable rebalance hooks) before any
 * kafkajs client can exist, and routes kafkajs logs into our logger.
 */
import "./idle_fix.ts";
import "./encoder_fix.ts";
import "./produce_encoder.ts";
import { Kafka, type KafkaConfig, type SASLOptions } from "kafkajs";
import { type Logger, logger } from "../observability/log.ts";
import { KafkajsAdminAdapter } from "./admin.ts";
import { type ConsumerHooksTarget, DEFAULT_CONSUMER_OPTIONS, KafkajsConsumerAdapter } from "./consumer.ts";
import { kafkajsLogCreator, kafkajsLogLevelFor } from "./kafkajs_logger.ts";
import {
  ATTEMPT_RETRIES,
  DEFAULT_PRODUCER_OPTIONS,
  KafkajsProducerAdapter,
  pinningPartitioner,
} from "./producer.ts";
import { KafkaOutage } from "./outage.ts";
import { hookedAssigner } from "./rebalance_hook.ts";
import { KafkajsGroupMembership } from "./group_membership.ts";
import { KafkajsTransactionalProducer } from "./transactional_producer.ts";
import { fenceTransactionalIds } from "./producer_fencing.ts";
import { partitionsWithOpenTransactions } from "./open_transactions.ts";
import type {
  Admin,
  Consumer,
  ConsumerOptions,
  GroupMembership,
  GroupMembershipHandler,
  GroupMembershipOptions,
  KafkaClient,
  KafkaConnectionOptions,
  Producer,
  ProducerOptions,
  RebalanceListener,
  Subscription,
  TransactionalProducer,
} from "./types.ts";

export interface CreateKafkaOptions {
  /** Logger for this client's lines; default logger("kafka"). */
  log?: Logger;
  /**
   * Called when a consumer stops for good: its batch handler threw, or kafkajs gave up after retries; not for a
   * consumer created with an `onCrash` of its own. Default: log only (the error is already logged by the consumer).
   */
  onConsumerCrash?: (error: Error) => void;
  /**
   * Told when Kafka goes out of reach (the sentence to show, e.g. as a task's status warning) and when it is back
   * (null). Default: both are logged.
   */
  onUnreachable?: (sentence: string | null) => void;
  /** How this client retries meanwhile, for that sentence; default "retrying". */
  retrying?: string;
}

export function createKafka(
  connection: KafkaConnectionOptions,
  options: CreateKafkaOptions = {},
): KafkaClient {
  const log = options.log ?? logger("kafka");
  const outage = new KafkaOutage(log, options.retrying ?? "retrying", options.onUnreachable);
  const kafka = new Kafka(kafkajsConfig(connection, log, outage));
  return {
    connection,

    async producer(overrides: Partial<ProducerOptions> = {}): Promise<Producer> {
      const settings = { ...DEFAULT_PRODUCER_OPTIONS, ...overrides };
      const producer = kafka.producer({
        createPartitioner: pinningPartitioner,
        retry: {
          retries: Math.min(ATTEMPT_RETRIES, settings.retries),
          initialRetryTime: Math.max(1, settings.retryBackoffMs),
          maxRetryTime: settings.retryBackoffMaxMs,
        },
      });
      await producer.connect();
      return new KafkajsProducerAdapter(producer, settings, log, outage);
    },

    transactionalProducer(
      transactionalId: string,
      overrides: Partial<ProducerOptions> = {},
      closeOn: readonly string[] = [],
    ): Promise<TransactionalProducer> {
      const settings = { ...DEFAULT_PRODUCER_OPTIONS, ...overrides, acks: -1 as const };
      const openPartitions = closeOn.length === 0 ? undefined : async () => {
        const connected = kafka.admin();
        await connected.connect();
        const admin = new KafkajsAdminAdapter(kafka, connected, log);
        try {
          return await partitionsWithOpenTransactions(admin, closeOn);
        } finally {
          await admin.close();
        }
      };
      return KafkajsTransactionalProducer.create(
        kafka,
        transactionalId,
        settings,
        log,
        outage,
        openPartitions,
      );
    },

    fenceProducers(transactionalIds: string[]): Promise<void> {
      return fenceTransactionalIds(kafka, transactionalIds, log);
    },

    async consumer(
      subscription: Subscription,
      { onCrash: ownCrash, ...overrides }: Partial<ConsumerOptions> & {
        groupId: string;
        onCrash?: (error: Error) => void;
      },
      listener: RebalanceListener = {},
    ): Promise<Consumer> {
      const settings: ConsumerOptions = { ...DEFAULT_CONSUMER_OPTIONS, ...overrides };
      const target: ConsumerHooksTarget = { group: null };
      const consumer = kafka.consumer({
        groupId: settings.groupId,
        sessionTimeout: settings.sessionTimeoutMs,
        heartbeatInterval: settings.heartbeatIntervalMs,
        rebalanceTimeout: settings.rebalanceTimeoutMs,
        maxWaitTimeInMs: settings.fetchMaxWaitMs,
        maxBytesPerPartition: settings.maxPartitionFetchBytes,
        maxBytes: settings.fetchMaxBytes,
        readUncommitted: !settings.readCommitted,
        allowAutoTopicCreation: false,
        partitionAssigners: [hookedAssigner({
          async beforeJoin(group, held) {
            target.group = group;
            if (held.length > 0) await listener.onPartitionsRevoked?.(held);
          },
          async afterJoin(group, assigned) {
            target.group = group;
            await listener.onPartitionsAssigned?.(assigned);
          },
        })],
      });
      await consumer.connect();
      try {
        const fromBeginning = settings.autoOffsetReset === "earliest";
        if ("pattern" in subscription) {
          await consumer.subscribe({ topics: [subscription.pattern], fromBeginning });
        } else await consumer.subscribe({ topics: subscription.topics, fromBeginning });
      } catch (e) {
        await consumer.disconnect();
        throw e;
      }
      // A consumer's own crash handler (a read that fails by itself) replaces the client's (the task fails).
      const onCrash = ownCrash ?? options.onConsumerCrash ?? (() => {});
      // A fetch answered: the cluster is reachable (again).
      consumer.on(consumer.events.FETCH, () => outage.reachable());
      return new KafkajsConsumerAdapter(consumer, target, listener, onCrash, log, ownCrash !== undefined);
    },

    async admin(): Promise<Admin> {
      const admin = kafka.admin();
      await admin.connect();
      return new KafkajsAdminAdapter(kafka, admin, log);
    },

    groupMembership(settings: GroupMembershipOptions, handler: GroupMembershipHandler): GroupMembership {
      return new KafkajsGroupMembership(
        (assigner) =>
          kafka.consumer({
            groupId: settings.groupId,
            sessionTimeout: settings.sessionTimeoutMs,
            heartbeatInterval: settings.heartbeatIntervalMs,
            rebalanceTimeout: settings.rebalanceTimeoutMs,
            // How often the idle runner loops, so heartbeats and requested rejoins happen promptly.
            maxWaitTimeInMs: Math.min(500, settings.heartbeatIntervalMs),
            allowAutoTopicCreation: false,
            partitionAssigners: [assigner as never],
          }),
        settings,
        handler,
        log,
      );
    },
  };
}

function kafkajsConfig(connection: KafkaConnectionOptions, log: Logger, outage: KafkaOutage): KafkaConfig {
  const config: KafkaConfig = {
    brokers: connection.brokers,
    clientId: connection.clientId,
    requestTimeout: connection.requestTimeoutMs,
    connectionTimeout: connection.connectionTimeoutMs,
    logLevel: kafkajsLogLevelFor(log),
    logCreator: kafkajsLogCreator(log, outage),
  };
  if (connection.tls) {
    const { ca, cert, key, passphrase, checkServerIdentity } = connection.tls;
    config.ssl = {
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      ...(passphrase ? { passphrase } : {}),
      ...(checkServerIdentity === false ? { checkServerIdentity: () => undefined } : {}),
    };
  }
  if (connection.sasl) {
    const { mechanism, username, password } = connection.sasl;
    config.sasl = { mechanism, username, password } as SASLOptions;
  }
  return config;
}
