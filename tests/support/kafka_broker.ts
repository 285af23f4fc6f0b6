/**
 * The real Apache Kafka broker for integration tests: one single-node KRaft broker per test run, shared by every
 * test file (see kafka_broker_process.ts for how it is started and tuned).
 *
 * Sharing: `deno test --parallel` runs each file in its own process, so the broker is started once outside them by
 * tests/support/with_kafka_broker.ts (which `deno task test` and scripts/test go through) and its address is passed
 * in $TABLESYNC_TEST_KAFKA_BOOTSTRAP. A file run on its own (`deno test -A tests/integration/x_test.ts`) finds no
 * such variable and starts a broker for its process on first use, stopped when the process exits.
 *
 * Because the broker is shared, every test uses its own topics and consumer groups: `uniqueName("orders")`.
 *
 * Moving a test from the librdkafka mock (kafka_mock.ts) to the broker is mechanical:
 *
 * ```ts
 * await using kafka = startKafkaMock();           // before
 * await using kafka = await startKafkaBroker();   // after: same bootstrapServers and createTopic(name, partitions)
 * await kafka.createTopic(uniqueName("in"), 1);   // createTopic is async here: add `await`, and unique names
 * ```
 *
 * Fault injection (brokerDown, setRtt, pushRequestErrors, setPartitionLeader) stays with the mock, which is the
 * better tool for it; a test that uses it says so in its name.
 */
import { ConfigResourceTypes, Kafka, logLevel } from "kafkajs";
import { describeBroker, type LaunchedBroker, launchKafkaBroker } from "./kafka_broker_process.ts";

/** The environment variable that hands a running broker's bootstrap address to test processes. */
export const BOOTSTRAP_ENV = "TABLESYNC_TEST_KAFKA_BOOTSTRAP";

/** A handle on the shared broker with the admin calls tests need. Closing it leaves the broker running. */
export interface KafkaBroker extends AsyncDisposable {
  readonly bootstrapServers: string;
  /** Creates a topic and waits for its leaders; `configs` are topic configs (e.g. cleanup.policy). */
  createTopic(
    name: string,
    partitions: number,
    replicationFactor?: number,
    configs?: Record<string, string>,
  ): Promise<void>;
  /** The topic's configs as the broker reports them (DescribeConfigs), defaults included. */
  topicConfig(name: string): Promise<Record<string, string>>;
  /** Replaces the topic's configs (AlterConfigs: those not given return to the broker's defaults). */
  alterTopicConfig(name: string, configs: Record<string, string>): Promise<void>;
  /** Deletes a topic (and waits until the broker no longer lists it). */
  deleteTopic(name: string): Promise<void>;
  /** Partition count of a topic, or null when it does not exist. */
  partitionCount(name: string): Promise<number | null>;
  /** Committed offsets of a consumer group: "topic/partition" → offset. */
  groupOffsets(groupId: string, topic: string): Promise<Record<string, number>>;
  /** State and member count of a consumer group, as the group coordinator reports them. */
  describeGroup(groupId: string): Promise<{ state: string; members: number }>;
  close(): Promise<void>;
}

/** A name no other test on the shared broker uses: `<prefix>-<random>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Waits until ListOffsets answers for all `partitions` of a new topic (every leader serves it). */
async function untilServed(
  listOffsets: () => Promise<unknown[]>,
  partitions: number,
  topic: string,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await listOffsets()).length === partitions) return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    if (Date.now() >= deadline) throw new Error(`topic ${topic} was created but is not served`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let ownBroker: Promise<LaunchedBroker> | undefined;

/**
 * The broker's bootstrap address: the run's shared broker, or (first call in a process without one) a broker
 * this process starts and that stops when the process exits.
 */
export function kafkaBootstrapServers(): Promise<string> {
  const shared = Deno.env.get(BOOTSTRAP_ENV);
  if (shared) return Promise.resolve(shared);
  ownBroker ??= launchKafkaBroker().then((broker) => {
    console.error(`[kafka] ${describeBroker(broker)} for this process`);
    // The launcher's watchdog would stop it within a second of our exit; this is sooner.
    globalThis.addEventListener("unload", () => {
      try {
        Deno.kill(broker.pid, "SIGTERM");
      } catch { /* already gone */ }
    });
    return broker;
  });
  return ownBroker.then((broker) => broker.bootstrapServers);
}

/** A handle on the broker (starting one if this process has none); `await using` or close() it. */
export async function startKafkaBroker(): Promise<KafkaBroker> {
  const bootstrapServers = await kafkaBootstrapServers();
  const kafka = new Kafka({
    brokers: [bootstrapServers],
    clientId: "test-broker-admin",
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  let connected: Promise<void> | undefined;
  const ready = () => connected ??= admin.connect();
  const handle: KafkaBroker = {
    bootstrapServers,
    async createTopic(name, partitions, replicationFactor = 1, configs = {}) {
      await ready();
      // kafkajs's waitForLeaders fails outright while the topic is not yet in a busy broker's metadata.
      const created = await admin.createTopics({
        waitForLeaders: false,
        topics: [{
          topic: name,
          numPartitions: partitions,
          replicationFactor,
          configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })),
        }],
      });
      if (!created) throw new Error(`topic ${name} already exists`);
      await untilServed(() => admin.fetchTopicOffsets(name), partitions, name);
    },
    async topicConfig(name) {
      await ready();
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name }],
      });
      return Object.fromEntries(resources[0].configEntries.map((e) => [e.configName, e.configValue]));
    },
    async alterTopicConfig(name, configs) {
      await ready();
      await admin.alterConfigs({
        validateOnly: false,
        resources: [{
          type: ConfigResourceTypes.TOPIC,
          name,
          configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })),
        }],
      });
    },
    async deleteTopic(name) {
      await ready();
      await admin.deleteTopics({ topics: [name] });
      while ((await admin.listTopics()).includes(name)) await new Promise((r) => setTimeout(r, 100));
    },
    async partitionCount(name) {
      await ready();
      if (!(await admin.listTopics()).includes(name)) return null;
      const { topics } = await admin.fetchTopicMetadata({ topics: [name] });
      return topics[0].partitions.length;
    },
    async groupOffsets(groupId, topic) {
      await ready();
      const [result] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return Object.fromEntries(
        result.partitions.filter((p) => Number(p.offset) >= 0).map((
          p,
        ) => [`${topic}/${p.partition}`, Number(p.offset)]),
      );
    },
    async describeGroup(groupId) {
      await ready();
      const { groups } = await admin.describeGroups([groupId]);
      return { state: groups[0].state, members: groups[0].members.length };
    },
    async close() {
      if (connected) await connected.then(() => admin.disconnect(), () => {});
    },
    [Symbol.asyncDispose]() {
      return handle.close();
    },
  };
  return handle;
}
