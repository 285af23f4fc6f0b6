/**
 * Opens what a group member shares with the others (config and status topics, the offsets topic's refresh)
 * and builds its WorkerGroup, from the worker config.
 */
import type { KafkaClient } from "../../kafka/mod.ts";
import type { OffsetStore } from "../offsets/types.ts";
import { TopicOffsetStore } from "../offsets/topic_store.ts";
import { ConfigTopicStore } from "./config_topic_store.ts";
import { StatusTopicStore } from "./status_topic_store.ts";
import { WorkerGroup } from "./worker_group.ts";

export interface GroupStores {
  config: ConfigTopicStore;
  status: StatusTopicStore;
  members: WorkerGroup;
  /** Leaves the group, then stops following the topics. */
  close(): Promise<void>;
}

export async function startGroupStores(
  worker: Readonly<Record<string, unknown>>,
  kafka: KafkaClient,
  offsets: OffsetStore,
  workerId: () => string,
): Promise<GroupStores> {
  if (!(offsets instanceof TopicOffsetStore)) {
    throw new Error("group mode needs the topic offset store (offset.storage.topic)");
  }
  const configTopic = worker["config.storage.topic"] as string;
  // Missing topics are created, as Connect's distributed worker does.
  const config = new ConfigTopicStore(
    kafka,
    configTopic,
    worker["config.storage.replication.factor"] as number,
  );
  const status = new StatusTopicStore(kafka, worker["status.storage.topic"] as string, {
    partitions: worker["status.storage.partitions"] as number,
    replicationFactor: worker["status.storage.replication.factor"] as number,
  });
  await Promise.all([config.start(), status.start()]);
  const members = new WorkerGroup({
    kafka,
    groupId: worker["group.id"] as string,
    sessionTimeoutMs: worker["session.timeout.ms"] as number,
    heartbeatIntervalMs: worker["heartbeat.interval.ms"] as number,
    rebalanceTimeoutMs: worker["rebalance.timeout.ms"] as number,
    config,
    configTopic,
    status,
    refreshOffsets: () => offsets.refresh(),
    workerId,
  });
  return {
    config,
    status,
    members,
    async close() {
      await members.close();
      await Promise.all([config.close(), status.close()]);
    },
  };
}
