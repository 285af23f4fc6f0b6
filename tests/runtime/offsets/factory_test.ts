import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { createKafka } from "../../../src/kafka/mod.ts";
import { createOffsetStore, OffsetStoreConfigError } from "../../../src/runtime/offsets/factory.ts";
import { FileOffsetStore } from "../../../src/runtime/offsets/file_store.ts";
import { TopicOffsetStore } from "../../../src/runtime/offsets/topic_store.ts";

// Never connected: building a store does no I/O.
const kafka = createKafka({
  brokers: ["127.0.0.1:1"],
  clientId: "t",
  requestTimeoutMs: 1000,
  connectionTimeoutMs: 1000,
});

Deno.test("factory: offset.storage.file.filename gives the file store", () => {
  const store = createOffsetStore({ "offset.storage.file.filename": "data/offsets.json" });
  assert(store instanceof FileOffsetStore);
  assertEquals(store.path, "data/offsets.json");
});

Deno.test("factory: offset.storage.topic takes precedence and gives the topic store", () => {
  const store = createOffsetStore(
    {
      "offset.storage.topic": "connect-offsets",
      "offset.storage.file.filename": "data/offsets.json",
      "offset.storage.partitions": "25",
      "offset.storage.replication.factor": -1,
      "offset.flush.interval.ms": 500,
    },
    { kafka },
  );
  assert(store instanceof TopicOffsetStore);
});

Deno.test("factory: a blank topic falls back to the file", () => {
  const store = createOffsetStore({ "offset.storage.topic": " ", "offset.storage.file.filename": "o.json" });
  assert(store instanceof FileOffsetStore);
});

Deno.test("factory: unusable configs are refused with the key named", () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [
      {},
      /No source offset store is configured: set offset\.storage\.file\.filename .* or offset\.storage\.topic/,
    ],
    [{ "offset.storage.file.filename": "" }, /No source offset store is configured/],
    [
      { "offset.storage.topic": "connect-offsets" },
      /offset\.storage\.topic is "connect-offsets" but the worker has no Kafka client/,
    ],
    [{ "offset.storage.file.filename": 3 }, /offset\.storage\.file\.filename must be a string/],
    [
      { "offset.storage.file.filename": "o.json", "offset.flush.interval.ms": "-5" },
      /offset\.flush\.interval\.ms must be an integer ≥ 0, got "-5"/,
    ],
    [
      { "offset.storage.topic": "t", "offset.storage.partitions": "0" },
      /offset\.storage\.partitions must be a positive integer or -1/,
    ],
    [
      { "offset.storage.topic": "t", "offset.storage.replication.factor": "three" },
      /offset\.storage\.replication\.factor must be/,
    ],
  ];
  for (const [config, message] of cases) {
    const withKafka = !message.source.includes("no Kafka client");
    assertThrows(
      () => createOffsetStore(config, withKafka ? { kafka } : {}),
      OffsetStoreConfigError,
      message,
      JSON.stringify(config),
    );
  }
});
