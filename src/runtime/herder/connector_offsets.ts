/**
 * Offsets over REST (KIP-875): a source connector's offsets live in the offset store, a sink connector's are its
 * consumer group's committed offsets. Altering and resetting need the connector STOPPED.
 */
import { type KafkaClient, UnknownTopicError } from "../../kafka/mod.ts";
import { ConnectRestError } from "./connect_rest_error.ts";
import type { OffsetStore, OffsetUpdate } from "../offsets/types.ts";
import type { SourceOffsetEntry } from "../../connect/task_api.ts";
import type { SourceOffset, SourcePartition } from "../../connect/record.ts";
import { sinkGroupOf } from "../../config/sink_group.ts";
import { kindOf, type ManagedConnector } from "./managed.ts";
import { isPlainObject } from "../../common/plain_object.ts";

/** Copies of a source connector's stored offsets (for a task's start message and the REST answer). */
export function sourceOffsetsOf(store: OffsetStore, connector: string): SourceOffsetEntry[] {
  return store.getAll(connector).map((e) => ({ partition: { ...e.partition }, offset: { ...e.offset } }));
}

type OffsetChange = { partition: unknown; offset: unknown };

export class ConnectorOffsets {
  constructor(private readonly store: OffsetStore, private readonly kafka: () => Promise<KafkaClient>) {}

  async list(
    m: ManagedConnector,
  ): Promise<{ offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> }[] }> {
    if (kindOf(m) === "source") {
      return {
        offsets: sourceOffsetsOf(this.store, m.name),
      };
    }
    return await this.#withAdmin(async (admin) => {
      const committed = await admin.fetchCommittedOffsets(sinkGroupOf(m.config));
      return {
        offsets: committed.map((c) => ({
          partition: { kafka_topic: c.topic, kafka_partition: c.partition },
          offset: { kafka_offset: c.offset },
        })),
      };
    });
  }

  async alter(m: ManagedConnector, entries: OffsetChange[]): Promise<void> {
    requireStopped(m);
    if (!Array.isArray(entries) || entries.length === 0) {
      throw new ConnectRestError(
        400,
        "Partitions / offsets need to be provided for an alter offsets request",
      );
    }
    if (kindOf(m) === "source") {
      for (const e of entries) {
        if (!isPlainObject(e.partition)) throw new ConnectRestError(400, "Source partitions may not be null");
        if (e.offset !== null && !isPlainObject(e.offset)) {
          throw new ConnectRestError(400, "Source offsets must be objects or null");
        }
        // An offset the connector's task could not resume from is refused (SourceConnector.alterOffsets).
        const problem = m.plugin?.offsetProblem?.(
          e.partition as SourcePartition,
          e.offset as SourceOffset | null,
        );
        if (problem) throw new ConnectRestError(400, problem);
      }
      try {
        // Objects or null, checked above; the store validates every value (primitives only) before applying.
        this.store.set(m.name, entries as OffsetUpdate[]);
      } catch (e) {
        throw new ConnectRestError(400, (e as Error).message);
      }
      await this.store.flush();
      return;
    }
    const changes = entries.map((e) => sinkOffsetChange(e));
    await this.#withAdmin(async (admin) => {
      // A partition the topic lacks came back as a 500 with the broker's raw "This server does not host this
      // topic-partition": refused here, naming it.
      for (const topic of new Set(changes.map((c) => c.topic))) {
        const partitions = await admin.partitionsFor(topic).catch((e) => {
          if (e instanceof UnknownTopicError) {
            throw new ConnectRestError(400, `The offsets name topic '${topic}', which does not exist`);
          }
          throw e;
        });
        const missing = changes.find((c) => c.topic === topic && !partitions.includes(c.partition));
        if (missing) {
          throw new ConnectRestError(
            400,
            `The offsets name partition ${missing.partition} of topic '${topic}', which has partitions ` +
              `0 to ${partitions.length - 1}`,
          );
        }
      }
      await admin.setCommittedOffsets(sinkGroupOf(m.config), changes);
    });
  }

  async reset(m: ManagedConnector): Promise<void> {
    requireStopped(m);
    if (kindOf(m) === "source") {
      this.store.set(
        m.name,
        this.store.getAll(m.name).map((e) => ({ partition: e.partition, offset: null })),
      );
      await this.store.flush();
      return;
    }
    await this.#withAdmin(async (admin) => {
      const committed = await admin.fetchCommittedOffsets(sinkGroupOf(m.config));
      if (committed.length > 0) {
        await admin.setCommittedOffsets(
          sinkGroupOf(m.config),
          committed.map((c) => ({ topic: c.topic, partition: c.partition, offset: -1 })),
        );
      }
    });
  }

  async #withAdmin<T>(use: (admin: Awaited<ReturnType<KafkaClient["admin"]>>) => Promise<T>): Promise<T> {
    const admin = await (await this.kafka()).admin();
    try {
      return await use(admin);
    } finally {
      await admin.close();
    }
  }
}

function requireStopped(m: ManagedConnector): void {
  if (m.target !== "STOPPED" || m.tasks.length > 0) {
    throw new ConnectRestError(
      400,
      `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${m.name}/stop' endpoint`,
    );
  }
}

function sinkOffsetChange(e: OffsetChange): { topic: string; partition: number; offset: number } {
  const p = e.partition as Record<string, unknown> | null;
  if (!isPlainObject(p) || typeof p.kafka_topic !== "string" || p.kafka_partition === undefined) {
    throw new ConnectRestError(
      400,
      "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'",
    );
  }
  const partition = Number(p.kafka_partition);
  if (Number.isInteger(partition) && partition < 0) throw negative("partition", partition);
  if (!Number.isInteger(partition)) {
    throw new ConnectRestError(
      400,
      "Failed to parse the following Kafka partition value in the provided offsets: '" +
        String(p.kafka_partition) + "'. Partition values for sink connectors need to be integers.",
    );
  }
  if (e.offset === null) return { topic: p.kafka_topic, partition, offset: -1 };
  const o = e.offset as Record<string, unknown>;
  if (!isPlainObject(o) || o.kafka_offset === undefined) {
    throw new ConnectRestError(
      400,
      "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
    );
  }
  const offset = Number(o.kafka_offset);
  if (Number.isInteger(offset) && offset < 0) throw negative("offset", offset);
  if (!Number.isInteger(offset)) {
    throw new ConnectRestError(
      400,
      "Failed to parse the following Kafka offset value in the provided offsets: '" + String(o.kafka_offset) +
        "'. Offset values for sink connectors need to be integers.",
    );
  }
  return { topic: p.kafka_topic, partition, offset };
}

/** Connect's "need to be integers" read wrong for -1, which is one: a negative number is said as such. */
function negative(what: "partition" | "offset", value: number): ConnectRestError {
  return new ConnectRestError(
    400,
    `The Kafka ${what} value ${value} in the provided offsets is negative; ${what}s start at 0` +
      (what === "offset" ? " (an offset of null resets the partition's committed offset)" : ""),
  );
}
