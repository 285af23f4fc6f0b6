/**
 * Connector and task statuses of a worker group, in the status topic (`status.storage.topic`, compacted), with
 * Kafka Connect's keys and value shape: `status-connector-<name>` / `status-task-<name>-<n>` →
 * `{"state":"RUNNING","trace":null,"worker_id":"host:port","generation":N}`, plus tablesync's `warnings` (a list
 * of sentences, only when the task has any; Connect ignores the field). Each member writes the statuses
 * of what it runs and follows everyone's, so any member can answer `GET /connectors/<name>/status`. The
 * generation is the latest rebalance round the writer had heard of: it tells a status written before a round
 * handed the task on from one written after (connector_lifecycle.ts waits on it).
 */
import type { ConsumedRecord, KafkaClient } from "../../kafka/mod.ts";
import { logger } from "../../observability/log.ts";
import type { ReportedTaskStatus } from "../herder/task_placement.ts";
import { jsonValue, keyText, TopicTail } from "./topic_tail.ts";

const log = logger("group");

export class StatusTopicStore {
  readonly #tail: TopicTail;
  readonly #statuses = new Map<string, ReportedTaskStatus>();

  /** `create`: partitions and replication factor when the topic is created (-1 = broker default). */
  constructor(kafka: KafkaClient, topic: string, create: { partitions: number; replicationFactor: number }) {
    this.#tail = new TopicTail(kafka, {
      topic,
      setting: "status.storage.topic",
      purpose: "status-reader",
      create: { ...create, settings: "status.storage.partitions, status.storage.replication.factor" },
      apply: (r) => this.#apply(r),
    });
  }

  start(): Promise<void> {
    return this.#tail.start();
  }

  task(connector: string, task: number): ReportedTaskStatus | undefined {
    return this.#statuses.get(`status-task-${connector}-${task}`);
  }

  connector(connector: string): ReportedTaskStatus | undefined {
    return this.#statuses.get(`status-connector-${connector}`);
  }

  /** Writes a status (in the background: a lost status write is logged, never fatal). */
  putTask(connector: string, task: number, status: ReportedTaskStatus, generation: number): void {
    this.#put(`status-task-${connector}-${task}`, status, generation);
  }

  putConnector(connector: string, status: ReportedTaskStatus, generation: number): void {
    this.#put(`status-connector-${connector}`, status, generation);
  }

  close(): Promise<void> {
    return this.#tail.close();
  }

  #put(key: string, status: ReportedTaskStatus, generation: number): void {
    // Applied here at once (read-your-writes); the topic copy reaches the other members.
    this.#statuses.set(key, { ...status, generation });
    const value = {
      state: status.state,
      trace: status.trace ?? null,
      worker_id: status.workerId,
      generation,
      ...(status.warnings?.length ? { warnings: status.warnings } : {}),
    };
    this.#tail.write([{ key, value }]).catch((e) =>
      log.error({ err: e, key }, "a status could not be written to the status topic")
    );
  }

  #apply(record: ConsumedRecord): void {
    const key = keyText(record);
    if (key === null || !key.startsWith("status-")) return;
    const value = jsonValue(record) as Record<string, unknown> | null;
    if (value === null) {
      this.#statuses.delete(key);
      return;
    }
    if (typeof value.state !== "string" || typeof value.worker_id !== "string") return;
    this.#statuses.set(key, {
      state: value.state,
      workerId: value.worker_id,
      ...(typeof value.trace === "string" ? { trace: value.trace } : {}),
      ...(warningsOf(value.warnings) ?? {}),
      ...(typeof value.generation === "number" ? { generation: value.generation } : {}),
    });
  }
}

/** The `warnings` field of a stored status, when it is a non-empty list of sentences. */
function warningsOf(value: unknown): { warnings: string[] } | null {
  if (!Array.isArray(value) || value.length === 0 || !value.every((w) => typeof w === "string")) return null;
  return { warnings: value };
}
