/**
 * Fencing transactional ids without keeping a producer: what Kafka's `Admin.fenceProducers` (KIP-618) does for
 * Connect's zombie-fencing round. kafkajs 2.2.4 has no such admin call, so each id gets a transactional producer
 * that initialises it (InitProducerId bumps the id's epoch: every earlier producer of the id is refused from then
 * on, and the coordinator aborts its open transaction before answering) and closes again.
 */
import type { Kafka } from "kafkajs";
import type { Logger } from "../observability/log.ts";
import { DEFAULT_PRODUCER_OPTIONS } from "./producer.ts";
import { KafkajsTransactionalProducer } from "./transactional_producer.ts";

/** Fences every id, in parallel (as fenceProducers sends its InitProducerId requests); rejects naming the ids that failed. */
export async function fenceTransactionalIds(
  kafka: Kafka,
  transactionalIds: string[],
  log: Logger,
): Promise<void> {
  const settings = { ...DEFAULT_PRODUCER_OPTIONS, acks: -1 as const };
  const results = await Promise.allSettled(transactionalIds.map(async (id) => {
    const producer = await KafkajsTransactionalProducer.create(kafka, id, settings, log);
    await producer.close();
  }));
  const failed = transactionalIds.flatMap((id, i) => {
    const r = results[i];
    return r.status === "rejected" ? [`${id}: ${(r.reason as Error)?.message ?? r.reason}`] : [];
  });
  if (failed.length > 0) {
    throw new Error(`fencing the transactional ids failed (${failed.join("; ")})`, {
      cause: (results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason,
    });
  }
}
