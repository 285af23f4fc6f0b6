/**
 * The Kafka layer's public surface. Callers import from here (or from types.ts for shapes only); nothing outside
 * src/kafka/ imports kafkajs.
 *
 * ```ts
 * const kafka = createKafka({ brokers: ["127.0.0.1:9092"], clientId: "tablesync" });
 * const producer = await kafka.producer();
 * const [ack] = await producer.send([{ topic: "incidents", key: null, value: new TextEncoder().encode("{}") }]);
 * await producer.close();
 * ```
 */
export { createKafka, type CreateKafkaOptions } from "./client.ts";
export { DEFAULT_PRODUCER_OPTIONS } from "./producer.ts";
export { DeliveryTimeoutError } from "./delivery_retry.ts";
export { type ReadToEndOptions, readTopicToEnd } from "./read_to_end.ts";
export {
  isTransient as isKafkaTransient,
  isUnreachable as isKafkaUnreachable,
  unreachableReason as kafkaUnreachableReason,
} from "./outage.ts";
export { type KafkaOptions, kafkaOptionsFromProperties, stripPrefix } from "./options.ts";
export {
  KafkaConfigError,
  kafkaErrorType,
  ProducerFencedError,
  TopicCreationUnsupportedError,
  TransactionTimedOutError,
  UnknownTopicError,
} from "./errors.ts";
export type * from "./types.ts";
