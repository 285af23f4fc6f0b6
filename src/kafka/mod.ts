/**
 * The Kafka layer's public surface. Callers import from here (or from types.ts for shapes only); nothing outside
 * src/kafka/ imports kafkajs.
 */
export { createKafka, type CreateKafkaOptions } from "./client.ts";
export {
  DEFAULT_CLIENT_ID,
  DEFAULT_CONNECTION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type KafkaOptions,
  kafkaOptionsFromProperties,
  parseJaasConfig,
  stripPrefix,
} from "./options.ts";
export { DEFAULT_PRODUCER_OPTIONS } from "./producer.ts";
export { DEFAULT_CONSUMER_OPTIONS } from "./consumer.ts";
export {
  GroupNotEmptyError,
  KafkaConfigError,
  TopicCreationUnsupportedError,
  UnknownTopicError,
} from "./errors.ts";
export type * from "./types.ts";
