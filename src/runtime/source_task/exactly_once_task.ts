/**
 * Sets up an exactly-once source task (KIP-618) in its task thread, when the worker's exactly.once.source.support is
 * `enabled`, in Kafka Connect's order:
 *
 *  1. the task's transactional producer, id `<group.id>-<connector>-<task>` (`tablesync-…` without a group):
 *     creating it fences every earlier owner of the task (another daemon that had it before a rebalance, or a
 *     paused one that lost it) and waits until the coordinator aborted their open transaction; then it aborts
 *     what the id left open, unknown to the coordinator, on the offsets topics and the tables' topics (records
 *     a transform routes to other topics are not covered);
 *  2. only then the offsets, read with read_committed from the connector's own offsets.storage.topic (when set)
 *     and the worker's offset.storage.topic for partitions the former lacks: the last committed transaction's.
 *
 * The offsets the main thread sent with the start message are not used: they may predate the fencing.
 */
import type { SourceOffsetEntry } from "../../connect/task_api.ts";
import { exactlyOnceEnabled, transactionalIdOf } from "../../config/exactly_once_rules.ts";
import { canonicalJson } from "../offsets/offset_key.ts";
import { createOffsetStore } from "../offsets/factory.ts";
import { SourceTransactions, type TransactionBoundary } from "./source_transactions.ts";
import { aliasesOf } from "../../config/catalog.ts";
import { TABLE_PREFIX } from "../../config/defs/table.ts";
import type { TaskEnvironment } from "../task/task_environment.ts";

export interface ExactlyOnceTask {
  readonly transactions: SourceTransactions;
  /** The connector's committed offsets, read after fencing. */
  readonly offsets: SourceOffsetEntry[];
}

/** null when the worker does not enable exactly-once (the task runs at least once). */
export async function setUpExactlyOnce(env: TaskEnvironment): Promise<ExactlyOnceTask | null> {
  const { msg, worker, props, kafka, kafkaOptions, log } = env;
  if (!exactlyOnceEnabled(worker)) return null;
  const workerTopic = worker["offset.storage.topic"];
  const ownTopic = (props["offsets.storage.topic"] as string | null) ?? null;
  const transactionalId = transactionalIdOf(msg.workerConfig["group.id"], msg.connectorName, msg.taskId);
  // The topics the task wrote in transactions before: what the id may have left open there is aborted first.
  const tableTopics = aliasesOf(env.config).map((alias) => props[`${TABLE_PREFIX}${alias}.topic`])
    .filter((topic): topic is string => typeof topic === "string");
  const producer = await kafka.transactionalProducer(transactionalId, kafkaOptions.producer, [
    ...(ownTopic ? [ownTopic] : []),
    workerTopic,
    ...tableTopics,
  ]);
  try {
    const offsets = new Map<string, SourceOffsetEntry>();
    // The connector's own topic first: what it holds wins over the worker's topic (Connect's order).
    for (const topic of [ownTopic, workerTopic]) {
      if (!topic) continue;
      const store = createOffsetStore({ ...worker, "offset.storage.topic": topic }, { kafka });
      await store.start();
      try {
        for (const entry of store.getAll(msg.connectorName)) {
          const key = canonicalJson(entry.partition);
          if (!offsets.has(key)) offsets.set(key, entry);
        }
      } finally {
        await store.close();
      }
    }
    const boundary = props["transaction.boundary"] as TransactionBoundary;
    const intervalMs = (props["transaction.boundary.interval.ms"] as number | null) ??
      Number(worker["offset.flush.interval.ms"] ?? 1000);
    log.info(
      { transactionalId, boundary, offsetsTopic: ownTopic ?? workerTopic, offsets: offsets.size },
      "exactly-once: transactional producer initialised (earlier owners fenced), committed offsets read",
    );
    const transactions = new SourceTransactions({
      producer,
      offsetsTopic: ownTopic ?? workerTopic,
      connector: msg.connectorName,
      boundary,
      intervalMs,
    });
    return { transactions, offsets: [...offsets.values()] };
  } catch (e) {
    await producer.close().catch(() => {});
    throw e;
  }
}
