/**
 * Cross-field rules of exactly-once source delivery (KIP-618): the connector's `exactly.once.support`,
 * `transaction.boundary` and `offsets.storage.topic` against the worker's `exactly.once.source.support`, and the
 * producer overrides a transactional task cannot honour. Combinations that cannot hold are refused here, before a
 * task starts, with the key that must change.
 */
import { addError, type Analysis } from "./analyze.ts";
import { type ConverterContext, str } from "./rules.ts";

/** The worker enables exactly-once source tasks. */
export function exactlyOnceEnabled(worker: Readonly<Record<string, string>>): boolean {
  return worker["exactly.once.source.support"] === "enabled";
}

/**
 * Connect's transactional id of a source task: the task's producer takes it (exactly_once_task.ts), the
 * zombie-fencing round fences it (zombie_fencing.ts).
 */
export function transactionalIdOf(groupId: string | undefined, connector: string, taskId: number): string {
  return `${groupId?.trim() || "tablesync"}-${connector}-${taskId}`;
}

export function applyExactlyOnceRules(a: Analysis, ctx: ConverterContext): void {
  const worker = ctx.worker;
  const enabled = exactlyOnceEnabled(worker);
  const workerMode = worker["exactly.once.source.support"] ?? "disabled";
  if (str(a, "exactly.once.support") === "required" && !enabled) {
    addError(
      a,
      "exactly.once.support",
      `exactly.once.support=required, but the worker's exactly.once.source.support is ${workerMode}: ` +
        `set it to enabled (with offset.storage.topic), or use exactly.once.support=requested`,
    );
  }
  const ownTopic = str(a, "offsets.storage.topic");
  if (ownTopic && !enabled) {
    addError(
      a,
      "offsets.storage.topic",
      `offsets.storage.topic (a connector's own offsets topic) is used by exactly-once source tasks only, and ` +
        `the worker's exactly.once.source.support is ${workerMode}: remove it, or enable exactly-once`,
    );
  }
  if (ownTopic && ["config.storage.topic", "status.storage.topic"].some((k) => worker[k] === ownTopic)) {
    addError(
      a,
      "offsets.storage.topic",
      `offsets.storage.topic "${ownTopic}" is the worker's config or status topic; use a topic of its own`,
    );
  }
  if (!enabled) return;
  if (str(a, "transaction.boundary") === "connector") {
    addError(
      a,
      "transaction.boundary",
      "transaction.boundary=connector needs a connector that defines its transaction boundaries, and " +
        "TableSourceConnector does not: use poll or interval",
    );
  }
  const override = (key: string) => a.raw[`producer.override.${key}`]?.trim();
  if (override("transactional.id") !== undefined) {
    addError(
      a,
      "producer.override.transactional.id",
      "producer.override.transactional.id cannot be set with exactly-once: each task's transactional id is " +
        "<group.id>-<connector>-<task>, which is what fences a task's previous owner",
    );
  }
  if (override("enable.idempotence") === "false") {
    addError(
      a,
      "producer.override.enable.idempotence",
      "producer.override.enable.idempotence=false cannot hold with exactly-once: transactions need idempotence",
    );
  }
  const acks = override("acks");
  if (acks !== undefined && acks !== "all" && acks !== "-1") {
    addError(
      a,
      "producer.override.acks",
      `producer.override.acks=${acks} cannot hold with exactly-once: transactions need acks=all`,
    );
  }
}
