/**
 * Cross-field rules of exactly-once source delivery (KIP-618): the connector's `exactly.once.support`,
 * `transaction.boundary` and `offsets.storage.topic` against the worker's `exactly.once.source.support`, and the
 * producer overrides a transactional task cannot honour. Combinations that cannot hold are refused here, before a
 * task starts, with the key that must change.
 */
import { addError, type Analysis } from "./analyze.ts";
import { type ConverterContext, str } from "./rules.ts";

/**
 * The producer's `transaction.timeout.ms` when neither the connector (`producer.override.`) nor the worker
 * (`producer.`) sets it: Java's default, and the Kafka client's (kafka/producer.ts, DEFAULT_PRODUCER_OPTIONS).
 */
export const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;

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
  checkIntervalWithinTransactionTimeout(a, worker, override("transaction.timeout.ms"));
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

/**
 * The broker aborts a transaction left open longer than the producer's transaction.timeout.ms and refuses its
 * producer. With transaction.boundary=interval a transaction stays open for the interval and then until the poll
 * under way returns and its commit is answered, so the interval may be at most half the timeout: the other half is
 * the margin for a slow poll or a slow broker.
 */
function checkIntervalWithinTransactionTimeout(
  a: Analysis,
  worker: Readonly<Record<string, string>>,
  override: string | undefined,
): void {
  if (str(a, "transaction.boundary") !== "interval") return;
  const own = str(a, "transaction.boundary.interval.ms");
  const interval = Number(own ?? worker["offset.flush.interval.ms"] ?? NaN);
  // The order the task's producer takes them in (task_environment.ts): the connector's override, the worker's
  // producer. key, the worker's own key; an empty value hides those after it and means the default.
  const workerKey = ["producer.transaction.timeout.ms", "transaction.timeout.ms"].find((k) =>
    worker[k] !== undefined
  );
  const set = (override ?? (workerKey ? worker[workerKey] : undefined))?.trim() || undefined;
  const timeout = set === undefined ? DEFAULT_TRANSACTION_TIMEOUT_MS : Number(set);
  if (!Number.isFinite(interval) || !Number.isFinite(timeout) || interval * 2 <= timeout) return;
  const intervalFrom = own !== null
    ? `transaction.boundary.interval.ms=${interval}`
    : `the worker's offset.flush.interval.ms=${interval} (transaction.boundary.interval.ms is unset)`;
  const timeoutFrom = set === undefined
    ? `the producer's transaction.timeout.ms (default ${timeout})`
    : override !== undefined
    ? `producer.override.transaction.timeout.ms=${timeout}`
    : `the worker's ${workerKey}=${timeout}`;
  addError(
    a,
    own !== null ? "transaction.boundary.interval.ms" : "transaction.boundary",
    `${intervalFrom} is more than half of ${timeoutFrom}: a transaction stays open for the interval and until ` +
      `its commit, and the broker aborts one open past the timeout and refuses the task's producer. Lower the ` +
      `interval, or raise producer.override.transaction.timeout.ms (at most the broker's ` +
      `transaction.max.timeout.ms, default 900000)`,
  );
}
