/** Messages between a ThreadedProducer (threaded_producer.ts) and its thread (producer_thread.ts). */
import type { LogLevel } from "../observability/log.ts";
import type { PackedRecords } from "./record_pack.ts";
import type { KafkaConnectionOptions, ProducerOptions } from "./types.ts";

export type ToProducerThread =
  | {
    type: "open";
    connection: KafkaConnectionOptions;
    settings: ProducerOptions;
    logLevel: LogLevel;
    logBindings: Record<string, unknown>;
    /** Secrets the caller's realm knows (SASL password, key passphrase), so this realm's logs hide them too. */
    secrets: string[];
  }
  | { type: "send"; id: number; records: PackedRecords }
  | { type: "flush"; id: number }
  | { type: "close"; id: number };

/** A failure as it crosses the thread boundary: what callers branch on (`retriable`) survives. */
export interface ThreadError {
  name: string;
  message: string;
  stack?: string;
  retriable?: boolean;
}

export type FromProducerThread =
  | { type: "opened" }
  | { type: "open-failed"; error: ThreadError }
  /** One partition and offset per record, in the order sent. */
  | {
    type: "acked";
    id: number;
    partitions: Int32Array;
    offsets: Float64Array;
    topics: string[];
    topicOf: Uint16Array;
  }
  | { type: "failed"; id: number; error: ThreadError }
  | { type: "done"; id: number };
