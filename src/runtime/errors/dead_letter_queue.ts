/**
 * The dead letter queue (Kafka Connect's DeadLetterQueueReporter): records that failed a tolerated stage are
 * produced to `errors.deadletterqueue.topic.name` with their original key, value, headers and timestamp, and,
 * when `errors.deadletterqueue.context.headers.enable=true`, the `__connect.errors.*` context headers and the
 * headers a connector's error names in `errorContextHeaders` (the sink's `tablesync.errors.*`).
 */
import { type Admin, kafkaErrorType, type ProducedRecord, type Producer } from "../../kafka/mod.ts";
import { redact } from "../../observability/redact.ts";
import { javaClassName, type Stage } from "./stage.ts";

/** A failed record as it was before the failing stage: bytes when it came from Kafka, or what the source had. */
export interface FailedRecord {
  /** Where a consumed record came from (sink); absent for source records. */
  topic?: string;
  partition?: number;
  offset?: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers?: Record<string, Uint8Array | string>;
  timestamp?: number | null;
}

export interface DeadLetterQueueOptions {
  topic: string;
  contextHeaders: boolean;
  connectorName: string;
  taskId: number;
  /** The DLQ producer, created on first use so connectors without failures open no extra connection. */
  producer: () => Promise<Producer>;
}

const ERROR_HEADER_PREFIX = "__connect.errors.";

export class DeadLetterQueue {
  #options: DeadLetterQueueOptions;
  #producer: Promise<Producer> | undefined;

  constructor(options: DeadLetterQueueOptions) {
    this.#options = options;
  }

  get topic(): string {
    return this.#options.topic;
  }

  /** Produces the failed record and resolves once Kafka acknowledged it. */
  async report(record: FailedRecord, stage: Stage, executingClass: string, error: Error): Promise<void> {
    const headers: Record<string, Uint8Array | string> = { ...(record.headers ?? {}) };
    if (this.#options.contextHeaders) {
      const h = (name: string, value: string) => headers[ERROR_HEADER_PREFIX + name] = value;
      if (record.topic !== undefined) {
        h("topic", record.topic);
        h("partition", String(record.partition ?? -1));
        h("offset", String(record.offset ?? -1));
      }
      h("connector.name", this.#options.connectorName);
      h("task.id", String(this.#options.taskId));
      h("stage", stage);
      h("class.name", executingClass);
      h("exception.class.name", javaClassName(error));
      h("exception.message", redact(error.message));
      h("exception.stacktrace", redact(error.stack ?? `${error.name}: ${error.message}`));
      // A connector's own error context (the sink's write class and the instance's words), beside Connect's.
      const extra = (error as { errorContextHeaders?: unknown }).errorContextHeaders;
      if (extra !== null && typeof extra === "object") {
        for (const [name, value] of Object.entries(extra)) {
          if (typeof value === "string") headers[name] = redact(value);
        }
      }
    }
    const out: ProducedRecord = {
      topic: this.#options.topic,
      key: record.key,
      value: record.value,
      headers,
      timestamp: record.timestamp ?? undefined,
    };
    this.#producer ??= this.#options.producer();
    await (await this.#producer).send([out]);
  }

  async close(): Promise<void> {
    if (this.#producer) await (await this.#producer).close();
  }
}

/** Creates the dead letter queue topic unless it exists; an error names the topic, the key and the fix. */
export async function ensureDeadLetterQueueTopic(
  admin: Admin,
  topic: string,
  replicationFactor: number,
): Promise<boolean> {
  try {
    return await admin.createTopic(topic, { partitions: 1, replicationFactor });
  } catch (error) {
    // admin.createTopic names the broker's reasons in its message and keeps the first one's type.
    const hint = kafkaErrorType(error) === "INVALID_REPLICATION_FACTOR"
      ? `; set errors.deadletterqueue.topic.replication.factor to at most the number of brokers (-1: the ` +
        `broker's default.replication.factor), or create the topic beforehand`
      : "; create the topic beforehand or grant this worker CREATE on it";
    throw new Error(
      `could not create the dead letter queue topic ${topic} (errors.deadletterqueue.topic.name) with ` +
        `replication factor ${replicationFactor}: ${redact((error as Error).message)}${hint}`,
    );
  }
}
