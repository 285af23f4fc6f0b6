/// <reference lib="deno.worker" />
/**
 * The producer thread: runs one kafkajs producer (through KafkajsProducerAdapter, so every producer rule holds:
 * precise acks, pinned partitions, resends of unacknowledged partitions) for a ThreadedProducer in another
 * thread. kafkajs spends most of a backfill's CPU encoding requests; here that work runs beside the task's
 * fetching and record building instead of taking turns with it.
 */
import { logger, setLogLevel } from "../observability/log.ts";
import { registerSecret } from "../observability/redact.ts";
import { startMemoryTraceFromEnv } from "../observability/memory_trace.ts";
import { createKafka } from "./client.ts";
import type { FromProducerThread, ThreadError, ToProducerThread } from "./producer_thread_protocol.ts";
import { unpackRecords } from "./record_pack.ts";
import type { Producer } from "./types.ts";

let producer: Producer | null = null;

function post(message: FromProducerThread, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

function threadError(e: unknown): ThreadError {
  const error: Error & { retriable?: boolean } = e instanceof Error ? e : new Error(String(e));
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(typeof error.retriable === "boolean" ? { retriable: error.retriable } : {}),
  };
}

self.onmessage = async (event: MessageEvent<ToProducerThread>) => {
  const message = event.data;
  switch (message.type) {
    case "open": {
      for (const secret of message.secrets) registerSecret(secret);
      setLogLevel(message.logLevel);
      startMemoryTraceFromEnv("producer");
      try {
        const log = logger("kafka", message.logBindings);
        producer = await createKafka(message.connection, { log }).producer(message.settings);
        post({ type: "opened" });
      } catch (e) {
        post({ type: "open-failed", error: threadError(e) });
      }
      break;
    }
    case "send": {
      try {
        const acks = await producer!.send(unpackRecords(message.records));
        const partitions = new Int32Array(acks.length);
        const offsets = new Float64Array(acks.length);
        const topicOf = new Uint16Array(acks.length);
        const topics: string[] = [];
        acks.forEach((ack, i) => {
          partitions[i] = ack.partition;
          offsets[i] = ack.offset;
          let t = topics.indexOf(ack.topic);
          if (t < 0) t = topics.push(ack.topic) - 1;
          topicOf[i] = t;
        });
        post({ type: "acked", id: message.id, partitions, offsets, topics, topicOf }, [
          partitions.buffer,
          offsets.buffer,
          topicOf.buffer,
        ]);
      } catch (e) {
        post({ type: "failed", id: message.id, error: threadError(e) });
      }
      break;
    }
    case "flush":
      await producer?.flush().catch(() => {});
      post({ type: "done", id: message.id });
      break;
    case "close":
      await producer?.close().catch(() => {});
      post({ type: "done", id: message.id });
      break;
  }
};
