/**
 * Reads a topic's records from its start to the end offsets it had when reading began, decoding keys and values
 * with the task's converters, as a consumer of a group of its own that never commits (read_committed, so aborted
 * transactions do not count). A source task seeds its reconcile state from its topic with it.
 */
import type { Converter } from "../../connect/converters/converter.ts";
import { type KafkaClient, readTopicToEnd } from "../../kafka/mod.ts";

/** Longest a read may take before it fails. */
const READ_TIMEOUT_MS = 300_000;
/** Bytes a fetch returns at most: the task streams beside the read, so a fetch's decoded records stay small. */
const FETCH_BYTES = 262_144;

export function readTopicValues(
  kafka: KafkaClient,
  converters: { key: Converter; value: Converter },
  topic: string,
  visit: (key: unknown, value: unknown) => void | Promise<void>,
): Promise<void> {
  return readTopicToEnd(kafka, topic, (key, value) => {
    return visit(
      converters.key.toConnectData(topic, key, []).value,
      value === null ? null : converters.value.toConnectData(topic, value, []).value,
    );
  }, {
    groupPrefix: "tablesync-seed",
    timeoutMs: READ_TIMEOUT_MS,
    missingAsEmpty: true,
    fetchBytes: FETCH_BYTES,
  });
}
