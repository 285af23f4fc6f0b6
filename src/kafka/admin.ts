/**
 * Admin operations on top of kafkajs, with the workarounds each one needs.
 *
 * Committed offsets of an idle group (KIP-875 sink offsets):
 *  1. Like Java's AdminClient.alterConsumerGroupOffsets, send OffsetCommit with generation -1 and no member id.
 *     Real Kafka accepts it for an Empty group and answers UNKNOWN_MEMBER_ID when the group has members.
 *  2. On UNKNOWN_MEMBER_ID, ask DescribeGroups: members present → GroupNotEmptyError. If the cluster cannot
 *     describe groups (the librdkafka mock, which also answers UNKNOWN_MEMBER_ID for any group that ever had
 *     a member), join the group with a short-lived member, commit through it, and leave. kafkajs's own
 *     `admin.setOffsets` needs DescribeGroups, so it is not used.
 *  `offset: -1` clears a partition's position: OffsetFetch then answers -1, which consumers treat as "no committed
 *  offset" and apply auto.offset.reset (the OffsetDelete API is not available in kafkajs).
 *
 * kafkajs keeps its low-level cluster object private; the generation -1 commit and `requestTopic`'s single
 * metadata request (auto-creation allowed, no retries) reach it through the client's private `createCluster`
 * symbol, pinned to kafkajs 2.2.4 by deno.json.
 */
import { type Admin as KafkajsAdmin, ConfigResourceTypes, type Kafka } from "kafkajs";
import RequestsModule from "kafkajs/src/protocol/requests/index.js";
import type { Logger } from "../observability/log.ts";
import { toTopicOffsets } from "./consumer.ts";
import { GroupNotEmptyError, TopicCreationUnsupportedError, UnknownTopicError } from "./errors.ts";
import { hookedAssigner } from "./rebalance_hook.ts";
import type {
  Admin,
  CommittedOffset,
  CreateTopicOptions,
  PartitionWatermarks,
  TopicAvailability,
  TopicPartitionOffset,
} from "./types.ts";

/** kafkajs's request definitions (Metadata's, for requestTopic). */
// deno-lint-ignore no-explicit-any
const { requests } = RequestsModule as any;
const METADATA_API_KEY = 3;
/** ListOffsets' isolation level that counts open transactions' records (kafkajs's ISOLATION_LEVEL). */
const READ_UNCOMMITTED = 0;

/** Topics Java's listTopics() hides by default. */
const INTERNAL_TOPICS = new Set(["__consumer_offsets", "__transaction_state"]);

/** kafkajs error names that mean "this cluster cannot create topics through the API". */
const CREATE_TOPICS_UNSUPPORTED = new Set([
  "KafkaJSBrokerNotFound", // no controller in the metadata (librdkafka mock: controller id 0, brokers 1..N)
  "KafkaJSServerDoesNotSupportApiKey",
]);

/** Longest wait for a topic just created to serve requests (see #untilPartitionsServe). */
const TOPIC_READY_TIMEOUT_MS = 10_000;

/** Session timeout of the short-lived member used to alter offsets (must exceed the mock's 3 s join delay). */
const OFFSET_WRITER_SESSION_TIMEOUT_MS = 6_000;

export class KafkajsAdminAdapter implements Admin {
  #kafka: Kafka;
  #admin: KafkajsAdmin;
  #log: Logger;

  constructor(kafka: Kafka, admin: KafkajsAdmin, log: Logger) {
    this.#kafka = kafka;
    this.#admin = admin;
    this.#log = log;
  }

  async clusterId(): Promise<string> {
    return (await this.#admin.describeCluster()).clusterId;
  }

  async listTopics(): Promise<string[]> {
    return (await this.#admin.listTopics()).filter((t) => !INTERNAL_TOPICS.has(t)).sort();
  }

  async topicExists(name: string): Promise<boolean> {
    return (await this.#admin.listTopics()).includes(name);
  }

  async partitionsFor(topic: string): Promise<number[]> {
    // Checked first: asking metadata for an unknown topic makes kafkajs retry for seconds before failing.
    if (!(await this.topicExists(topic))) throw new UnknownTopicError(topic);
    const { topics } = await this.#admin.fetchTopicMetadata({ topics: [topic] });
    return topics[0].partitions.map((p) => p.partitionId).sort((a, b) => a - b);
  }

  async fetchTopicOffsets(topic: string): Promise<PartitionWatermarks[]> {
    if (!(await this.topicExists(topic))) throw new UnknownTopicError(topic);
    const offsets = await this.#admin.fetchTopicOffsets(topic);
    return offsets
      .map((o) => ({ partition: o.partition, low: Number(o.low), high: Number(o.high) }))
      .sort((a, b) => a.partition - b.partition);
  }

  async fetchHighWatermarks(topic: string): Promise<Map<number, number>> {
    const partitions = await this.partitionsFor(topic);
    // kafkajs's admin lists offsets read_committed (its cluster's default isolation): a cluster of its own asks
    // read_uncommitted.
    const cluster = this.#lowLevelCluster(false, READ_UNCOMMITTED);
    await cluster.connect();
    try {
      await cluster.addTargetTopic(topic);
      const [answer] = await cluster.fetchTopicsOffset([
        { topic, partitions: partitions.map((partition) => ({ partition })), fromBeginning: false },
      ]) as { partitions: { partition: number; offset: string }[] }[];
      return new Map(answer.partitions.map((p) => [p.partition, Number(p.offset)]));
    } finally {
      await cluster.disconnect();
    }
  }

  async fetchCommittedOffsets(groupId: string, topics?: string[]): Promise<CommittedOffset[]> {
    let result = await this.#admin.fetchOffsets(topics ? { groupId, topics } : { groupId });
    // OffsetFetch for "all topics" is not answered by every broker (the librdkafka mock returns nothing):
    // ask again naming every topic.
    if (!topics && result.length === 0) {
      const all = await this.listTopics();
      if (all.length > 0) result = await this.#admin.fetchOffsets({ groupId, topics: all });
    }
    return result.flatMap(({ topic, partitions }) =>
      partitions
        .filter((p) => Number(p.offset) >= 0)
        .map((p) => ({ topic, partition: p.partition, offset: Number(p.offset), metadata: p.metadata }))
    ).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }

  async setCommittedOffsets(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    try {
      await this.#commitWithoutMembership(groupId, offsets);
      return;
    } catch (error) {
      if ((error as { type?: string }).type !== "UNKNOWN_MEMBER_ID") throw error;
    }
    let members: number | null;
    try {
      const { groups } = await this.#admin.describeGroups([groupId]);
      members = groups[0]?.members.length ?? 0;
    } catch (error) {
      this.#log.debug({ groupId, err: error }, "cannot describe the group; altering offsets by joining it");
      members = null;
    }
    if (members !== null && members > 0) throw new GroupNotEmptyError(groupId);
    await this.#commitAsShortLivedMember(groupId, offsets);
  }

  async createTopic(name: string, options: CreateTopicOptions): Promise<boolean> {
    // A topic another client just created may not serve yet: wait for it as for our own (-1 = any count).
    if (await this.topicExists(name)) {
      await this.#untilPartitionsServe(name, -1);
      return false;
    }
    let created: boolean;
    try {
      // Not kafkajs's waitForLeaders: its metadata check fails outright when the new topic is not yet in the
      // broker's metadata (UNKNOWN_TOPIC_OR_PARTITION on a busy KRaft broker); #untilPartitionsServe waits instead.
      created = await this.#admin.createTopics({
        waitForLeaders: false,
        topics: [{
          topic: name,
          numPartitions: options.partitions,
          replicationFactor: options.replicationFactor,
          configEntries: Object.entries(options.configs ?? {}).map(([n, value]) => ({ name: n, value })),
        }],
      });
    } catch (error) {
      const e = error as Error & { type?: string };
      if (CREATE_TOPICS_UNSUPPORTED.has(e.name) || e.type === "UNSUPPORTED_VERSION") {
        throw new TopicCreationUnsupportedError(name, e.message);
      }
      throw withTopicReasons(e);
    }
    await this.#untilPartitionsServe(name, created ? options.partitions : -1);
    return created;
  }

  /**
   * A real broker answers CreateTopics before every partition leader serves requests: metadata or a ListOffsets
   * right away can fail with UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER_OR_FOLLOWER. Waits until ListOffsets
   * answers for every partition, so callers can read or write the new topic at once.
   */
  async #untilPartitionsServe(topic: string, partitions: number): Promise<void> {
    const deadline = Date.now() + TOPIC_READY_TIMEOUT_MS;
    for (;;) {
      try {
        if ((await this.#admin.fetchTopicOffsets(topic)).length >= partitions) return;
      } catch (error) {
        if (Date.now() >= deadline) throw error;
        this.#log.debug({ topic, err: error }, "new topic not served yet");
      }
      if (Date.now() >= deadline) {
        throw new Error(`topic ${topic} was created but not all partitions serve yet`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async requestTopic(name: string): Promise<TopicAvailability> {
    // One request, no kafkajs retries: the caller decides how long "missing" may persist.
    const cluster = this.#lowLevelCluster(true);
    await cluster.connect();
    try {
      // As broker.metadata([name]) does, but the refusals this probe expects are not logged as kafkajs errors.
      const broker = cluster.brokerPool.seedBroker;
      const metadata = broker.lookupRequest(METADATA_API_KEY, requests.Metadata);
      await broker.connectionPool.send({
        ...metadata({ topics: [name], allowAutoTopicCreation: true }),
        logResponseError: false,
      });
      return "available";
    } catch (error) {
      const e = error as { type?: string; retriable?: boolean };
      if (e.type === "UNKNOWN_TOPIC_OR_PARTITION") return "missing";
      if (e.type === "TOPIC_AUTHORIZATION_FAILED") return "unauthorized";
      if (e.retriable) return "pending"; // LEADER_NOT_AVAILABLE while the broker creates it
      throw error;
    } finally {
      await cluster.disconnect();
    }
  }

  async topicConfigs(name: string): Promise<Record<string, string>> {
    const { resources } = await this.#admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name }],
    });
    const resource = resources[0];
    if (!resource || resource.errorCode !== 0) {
      throw new Error(
        `cannot describe the configs of topic ${name}: ${resource?.errorMessage ?? "no answer"}`,
      );
    }
    return Object.fromEntries(resource.configEntries.map((e) => [e.configName, e.configValue]));
  }

  async close(): Promise<void> {
    await this.#admin.disconnect();
  }

  /** kafkajs's cluster object (private), for requests its admin does not offer; connect and disconnect it. */
  // deno-lint-ignore no-explicit-any
  #lowLevelCluster(allowAutoTopicCreation: boolean, isolationLevel?: number): any {
    const createCluster = Object.getOwnPropertySymbols(this.#kafka)
      .find((s) => s.description === "private:Kafka:createCluster");
    if (!createCluster) throw new Error("kafkajs internals changed: no createCluster symbol");
    // deno-lint-ignore no-explicit-any
    return (this.#kafka as any)[createCluster]({ allowAutoTopicCreation, isolationLevel });
  }

  async #commitWithoutMembership(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    const cluster = this.#lowLevelCluster(false);
    await cluster.connect();
    try {
      const coordinator = await cluster.findGroupCoordinator({ groupId });
      await coordinator.offsetCommit({
        groupId,
        groupGenerationId: -1,
        memberId: "",
        topics: toTopicOffsets(offsets),
      });
    } finally {
      await cluster.disconnect();
    }
  }

  async #commitAsShortLivedMember(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    let committed: Promise<void> | null = null;
    const consumer = this.#kafka.consumer({
      groupId,
      sessionTimeout: OFFSET_WRITER_SESSION_TIMEOUT_MS,
      allowAutoTopicCreation: false,
      partitionAssigners: [hookedAssigner({
        beforeJoin: () => Promise.resolve(),
        afterJoin: (group) => {
          committed ??= group.commitOffsets({ topics: toTopicOffsets(offsets) });
          return committed!;
        },
      })],
    });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [...new Set(offsets.map((o) => o.topic))] });
      // Leaving right after the join can leave a ghost member in the librdkafka mock, which then holds the next
      // join for a whole rebalance timeout; kafkajs's own setOffsets waits for the first fetch for the same reason.
      const fetched = new Promise<void>((resolve) => {
        const off = consumer.on(consumer.events.FETCH_START, () => {
          off();
          resolve();
        });
      });
      // run() resolves after the join, i.e. after afterJoin committed. Nothing is consumed or auto-committed.
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: () => Promise.resolve(),
      });
      if (!committed) throw new Error(`joining group "${groupId}" did not complete`);
      await committed;
      await fetched;
    } finally {
      await consumer.disconnect();
    }
  }
}

/**
 * kafkajs reports a refused CreateTopics as "Topic creation errors", the reasons (an authorization failure, a
 * policy violation) only inside: named in the message, as "Topic creation errors: Topic authorization failed
 * (TOPIC_AUTHORIZATION_FAILED)", the first reason's type kept for callers that branch on it.
 */
function withTopicReasons(error: Error & { errors?: unknown }): Error {
  if (!Array.isArray(error.errors) || error.errors.length === 0) return error;
  const reasons = (error.errors as (Error & { type?: string })[]).map((e) =>
    `${e.message}${e.type ? ` (${e.type})` : ""}`
  );
  return Object.assign(new Error(`${error.message}: ${[...new Set(reasons)].join("; ")}`, { cause: error }), {
    type: (error.errors[0] as { type?: string }).type,
  });
}
