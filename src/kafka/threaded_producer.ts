/**
 * A Producer whose kafkajs client lives in its own thread (producer_thread.ts). `send` packs the records into one
 * transferable buffer (record_pack.ts), so handing a page of records over costs one memcpy; acks come back as
 * two typed arrays. Semantics are the in-thread producer's: acks in input order, a rejected send means no record
 * of it may be treated as acknowledged, and `retriable` on errors is kept.
 *
 * Sends are handled by the thread in the order they were made; their requests may overlap in kafkajs, as with
 * the in-thread producer.
 */
import type { Logger, LogLevel } from "../observability/log.ts";
import type { FromProducerThread, ThreadError, ToProducerThread } from "./producer_thread_protocol.ts";
import { packRecords, transferablesOf } from "./record_pack.ts";
import type {
  KafkaConnectionOptions,
  ProducedRecord,
  Producer,
  ProducerOptions,
  RecordAck,
} from "./types.ts";

interface Waiting {
  resolve: (value: any) => void;
  reject: (error: Error) => void;
}

export class ThreadedProducer implements Producer {
  #worker: Worker;
  #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #closed = false;
  #gone: Error | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
  }

  static async open(
    connection: KafkaConnectionOptions,
    settings: ProducerOptions,
    log: Logger,
  ): Promise<ThreadedProducer> {
    const worker = new Worker(new URL("./producer_thread.ts", import.meta.url), { type: "module" });
    const producer = new ThreadedProducer(worker);
    const opened = new Promise<void>((resolve, reject) => {
      producer.#waiting.set(0, { resolve, reject });
    });
    worker.onmessage = (event: MessageEvent<FromProducerThread>) => producer.#onMessage(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      producer.#failAll(new Error(`the Kafka producer thread crashed: ${event.message}`));
    };
    const secrets = [connection.sasl?.password, connection.tls?.passphrase, connection.tls?.key]
      .filter((s): s is string => typeof s === "string");
    const open: ToProducerThread = {
      type: "open",
      connection,
      settings,
      logLevel: log.level as LogLevel,
      logBindings: log.bindings(),
      secrets,
    };
    worker.postMessage(open);
    try {
      await opened;
    } catch (e) {
      worker.terminate();
      throw e;
    }
    return producer;
  }

  send(records: ProducedRecord[]): Promise<RecordAck[]> {
    if (this.#closed) return Promise.reject(new Error("producer is closed"));
    if (this.#gone) return Promise.reject(this.#gone);
    if (records.length === 0) return Promise.resolve([]);
    const packed = packRecords(records);
    return this.#request({ type: "send", id: 0, records: packed }, transferablesOf(packed));
  }

  flush(): Promise<void> {
    if (this.#closed || this.#gone) return Promise.resolve();
    return this.#request({ type: "flush", id: 0 });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#gone) await this.#request<void>({ type: "close", id: 0 }).catch(() => {});
    this.#worker.terminate();
    this.#failAll(new Error("producer is closed"));
  }

  #request<T>(message: ToProducerThread & { id: number }, transfer: Transferable[] = []): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ ...message, id }, transfer);
    });
  }

  #onMessage(message: FromProducerThread): void {
    const id = "id" in message ? message.id : 0;
    const waiting = this.#waiting.get(id);
    if (!waiting) return;
    this.#waiting.delete(id);
    switch (message.type) {
      case "opened":
      case "done":
        waiting.resolve(undefined);
        break;
      case "open-failed":
      case "failed":
        waiting.reject(rebuild(message.error));
        break;
      case "acked": {
        const acks: RecordAck[] = new Array(message.partitions.length);
        for (let i = 0; i < acks.length; i++) {
          acks[i] = {
            topic: message.topics[message.topicOf[i]],
            partition: message.partitions[i],
            offset: message.offsets[i],
          };
        }
        waiting.resolve(acks);
        break;
      }
    }
  }

  #failAll(error: Error): void {
    this.#gone ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

function rebuild(e: ThreadError): Error {
  const error = new Error(e.message) as Error & { retriable?: boolean };
  error.name = e.name;
  if (e.stack) error.stack = e.stack;
  if (e.retriable !== undefined) error.retriable = e.retriable;
  return error;
}
