/**
 * Connector configs and target states of a worker group, in the config topic (`config.storage.topic`, one
 * partition, compacted), with Kafka Connect's keys and value shapes:
 *   `connector-<name>`    → `{"properties":{...}}` (null = deleted)
 *   `target-state-<name>` → `{"state":"STARTED|PAUSED","state.v2":"STARTED|PAUSED|STOPPED"}`
 * Two fields of ours ride along in the connector value and are ignored by Connect: `file.hash` (the hash of
 * the config-file entry the connector came from, so a changed file wins over older REST changes, as in
 * standalone mode) and `deleted: true` (a file connector deleted over REST stays deleted while the file entry
 * is unchanged; Connect would log and skip such a record).
 *
 * Restart requests travel the same way (KIP-745): `restart-connector-<name>` → `{"include-tasks":bool,
 * "only-failed":bool}`, and, ours (Connect forwards a task restart to its worker over REST instead),
 * `restart-task-<name>-<n>` → `{}`. Only requests written after a member started reach its `onRestart`.
 * Cluster-wide logger levels too (KIP-976): `logger-cluster-<name>` → `{"level":"DEBUG"}`, applied by every
 * member that reads it once it has started (`onLoggerLevel`), as Connect applies them.
 * And Connect's task count records of exactly-once source connectors (KIP-618, runtime/herder/zombie_fencing.ts):
 * `tasks-fencing-<name>` → `{"task-count":N}`, plus ours, `config.hash`: the config whose round it records.
 *
 * Every member follows the topic; `onChange` reports each connector whose stored entry changed, including this
 * member's own writes, except those a newer write of this member already superseded.
 */
import type { ConsumedRecord, KafkaClient } from "../../kafka/mod.ts";
import type {
  ConnectorConfigStore,
  StoredConnector,
  TargetState,
  TaskCountRecord,
  TaskCountRecords,
} from "../herder/connector_state_store.ts";
import { jsonValue, keyText, TopicTail } from "./topic_tail.ts";
import { logger } from "../../observability/log.ts";
import type { RawConfig } from "../../common/props.ts";
import type { RestartRequest } from "../herder/task_placement.ts";

/** A restart request read from the topic: the connector's (KIP-745), or one task's. */
export type ReadRestart = { connector: string } & (RestartRequest | { task: number });

const log = logger("group");

/** Connect's TargetState names for our target states. */
const TO_CONNECT: Record<TargetState, string> = { RUNNING: "STARTED", PAUSED: "PAUSED", STOPPED: "STOPPED" };
const FROM_CONNECT: Record<string, TargetState> = {
  STARTED: "RUNNING",
  PAUSED: "PAUSED",
  STOPPED: "STOPPED",
};

export class ConfigTopicStore implements ConnectorConfigStore, TaskCountRecords {
  readonly #tail: TopicTail;
  readonly #entries = new Map<string, StoredConnector>();
  /** Connector → offset of this member's latest write of it; older echoes of its own writes are skipped. */
  readonly #ownWrites = new Map<string, number>();
  #listener: (name: string, entry: StoredConnector | undefined) => void = () => {};
  #restartListener: (request: ReadRestart) => void = () => {};
  #loggerListener: (name: string, level: string) => void = () => {};
  readonly #taskCounts = new Map<string, TaskCountRecord>();

  /** `replicationFactor`: `config.storage.replication.factor` when the topic is created; default -1 (broker default). */
  constructor(kafka: KafkaClient, topic: string, replicationFactor = -1) {
    this.#tail = new TopicTail(kafka, {
      topic,
      setting: "config.storage.topic",
      singlePartition: true,
      purpose: "config-reader",
      create: { partitions: 1, replicationFactor, settings: "config.storage.replication.factor" },
      apply: (r) => this.#apply(r),
    });
  }

  /** Reads the topic to its end; then keeps following it. */
  start(): Promise<void> {
    return this.#tail.start();
  }

  /** Called for every connector whose stored entry changed after start (undefined = deleted). */
  onChange(listener: (name: string, entry: StoredConnector | undefined) => void): void {
    this.#listener = listener;
  }

  /** Called for every restart request read after start. */
  onRestart(listener: (request: ReadRestart) => void): void {
    this.#restartListener = listener;
  }

  /** Called for every cluster-wide logger level read from now on. */
  onLoggerLevel(listener: (name: string, level: string) => void): void {
    this.#loggerListener = listener;
  }

  /** Asks every member to set a logger's level; resolves once this member has read it back (and applied it). */
  async requestLoggerLevel(name: string, level: string): Promise<void> {
    const acks = await this.#tail.write([{ key: `logger-cluster-${name}`, value: { level }, partition: 0 }]);
    await this.#tail.waitFor(0, acks[acks.length - 1].offset);
  }

  /** Asks every member to restart what it runs of the connector. */
  async requestRestart(name: string, { includeTasks, onlyFailed }: RestartRequest): Promise<void> {
    const value = { "include-tasks": includeTasks, "only-failed": onlyFailed };
    await this.#tail.write([{ key: `restart-connector-${name}`, value, partition: 0 }]);
  }

  /** Asks the member running the task to restart it. */
  async requestTaskRestart(name: string, task: number): Promise<void> {
    await this.#tail.write([{ key: `restart-task-${name}-${task}`, value: {}, partition: 0 }]);
  }

  /** The config position this member has applied (the leader's position travels in each assignment). */
  position(): number {
    return this.#tail.position(0);
  }

  /** Resolves once this member applied the config up to `position`. */
  async waitForPosition(position: number): Promise<void> {
    if (position > 0) await this.#tail.waitFor(0, position - 1);
  }

  /** The latest task count record of the connector (kept when the connector is deleted, as Connect keeps it). */
  taskCountRecord(name: string): TaskCountRecord | undefined {
    return this.#taskCounts.get(name);
  }

  /** Writes a task count record; resolves once this member has read it back. */
  async putTaskCountRecord(name: string, { taskCount, configHash }: TaskCountRecord): Promise<void> {
    const value = { "task-count": taskCount, ...(configHash ? { "config.hash": configHash } : {}) };
    const acks = await this.#tail.write([{ key: `tasks-fencing-${name}`, value, partition: 0 }]);
    await this.#tail.waitFor(0, acks[acks.length - 1].offset);
  }

  get(name: string): StoredConnector | undefined {
    return this.#entries.get(name);
  }

  names(): string[] {
    return [...this.#entries.keys()];
  }

  async put(name: string, entry: StoredConnector): Promise<void> {
    const connector = entry.deleted
      ? { deleted: true, "file.hash": entry.fileHash }
      : { properties: entry.config, ...(entry.fileHash ? { "file.hash": entry.fileHash } : {}) };
    const target = {
      state: entry.target === "RUNNING" ? "STARTED" : "PAUSED",
      "state.v2": TO_CONNECT[entry.target],
    };
    await this.#write(name, [
      { key: `target-state-${name}`, value: target, partition: 0 },
      { key: `connector-${name}`, value: connector, partition: 0 },
    ]);
  }

  async remove(name: string): Promise<void> {
    await this.#write(name, [
      { key: `target-state-${name}`, value: null, partition: 0 },
      { key: `connector-${name}`, value: null, partition: 0 },
    ]);
  }

  close(): Promise<void> {
    return this.#tail.close();
  }

  async #write(name: string, records: { key: string; value: unknown; partition: number }[]): Promise<void> {
    const acks = await this.#tail.write(records);
    const last = acks[acks.length - 1].offset;
    this.#ownWrites.set(name, Math.max(last, this.#ownWrites.get(name) ?? -1));
    // Like Connect, a change returns once this member has read it back.
    await this.#tail.waitFor(0, last);
  }

  #apply(record: ConsumedRecord): void {
    const key = keyText(record);
    if (key === null) return;
    const value = jsonValue(record) as Record<string, unknown> | null;
    let name: string;
    if (key.startsWith("target-state-")) {
      name = key.slice("target-state-".length);
      const target = value ? FROM_CONNECT[String(value["state.v2"] ?? value["state"])] : undefined;
      this.#targets.set(name, target ?? "RUNNING");
      const current = this.#entries.get(name);
      if (!current || !target || current.target === target) return;
      this.#entries.set(name, { ...current, target });
    } else if (key.startsWith("connector-")) {
      name = key.slice("connector-".length);
      if (value === null) this.#entries.delete(name);
      else if (value.deleted === true) {
        this.#entries.set(name, {
          config: {},
          target: "RUNNING",
          deleted: true,
          fileHash: text(value["file.hash"]),
        });
      } else if (isConfig(value.properties)) {
        this.#entries.set(name, {
          config: value.properties,
          target: this.#targets.get(name) ?? "RUNNING",
          fileHash: text(value["file.hash"]),
        });
      } else {
        log.warn({ key, offset: record.offset }, "ignoring a config topic record without string properties");
        return;
      }
    } else if (key.startsWith("tasks-fencing-")) {
      const count = value?.["task-count"];
      if (typeof count === "number" && Number.isInteger(count) && count >= 0) {
        this.#taskCounts.set(key.slice("tasks-fencing-".length), {
          taskCount: count,
          configHash: text(value!["config.hash"]),
        });
      } else log.warn({ key, offset: record.offset }, "ignoring a task count record without a task-count");
      return;
    } else if (key.startsWith("logger-cluster-")) {
      if (typeof value?.level === "string") {
        this.#loggerListener(key.slice("logger-cluster-".length), value.level);
      }
      return;
    } else {
      this.#applyRestart(key, value);
      return;
    }
    const own = this.#ownWrites.get(name);
    if (own !== undefined && record.offset < own) return;
    const entry = this.#entries.get(name);
    this.#listener(name, entry?.deleted ? undefined : entry);
  }

  readonly #targets = new Map<string, TargetState>();

  #applyRestart(key: string, value: Record<string, unknown> | null): void {
    if (value === null) return;
    if (key.startsWith("restart-connector-")) {
      this.#restartListener({
        connector: key.slice("restart-connector-".length),
        includeTasks: value["include-tasks"] === true,
        onlyFailed: value["only-failed"] === true,
      });
      return;
    }
    const task = /^restart-task-(.+)-(\d+)$/.exec(key);
    if (task) this.#restartListener({ connector: task[1], task: Number(task[2]) });
  }
}

function text(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function isConfig(v: unknown): v is RawConfig {
  return typeof v === "object" && v !== null && !Array.isArray(v) &&
    Object.values(v).every((x) => typeof x === "string");
}
