/** Connect records and headers. */
import { assert, assertEquals, assertMatch, assertStrictEquals, assertThrows } from "../support/assert.ts";
import { SinkRecord, SourceRecord } from "../../src/connect/record.ts";
import { ConnectHeaders } from "../../src/connect/headers.ts";
import { Schema } from "../../src/connect/schema.ts";
import { ConnectTimestamp } from "../../src/connect/logical.ts";
import { DataException } from "../../src/connect/errors.ts";

Deno.test("SourceRecord.newRecord copies with changes and keeps source partition and offset", () => {
  const record = new SourceRecord({
    sourcePartition: { table: "incident" },
    sourceOffset: { ts: "2024-10-01 12:00:00", sys_id: "abc" },
    topic: "t",
    keySchema: Schema.STRING_SCHEMA,
    key: "abc",
    value: { a: 1 },
    timestamp: 1727784000000,
  });
  record.headers.addString("svc.table", "incident");
  const copy = record.newRecord({ topic: "t2", value: null, valueSchema: null });
  assertEquals(copy.topic, "t2");
  assertEquals(copy.key, "abc");
  assertEquals(copy.value, null);
  assertEquals(copy.timestamp, 1727784000000);
  assertEquals(copy.sourceOffset, record.sourceOffset);
  assertEquals(copy.headers.lastWithName("svc.table")!.value, "incident");
  copy.headers.addString("x", "y");
  assertEquals(record.headers.size, 1, "the copy's headers are independent");
  assertEquals(record.newRecord({ kafkaPartition: 3 }).kafkaPartition, 3);
  assertMatch(String(copy), /^SourceRecord\{sourcePartition=\{table=incident\}.* ConnectRecord\{topic='t2'/);
});

Deno.test("SinkRecord.newRecord keeps the Kafka offset and original coordinates", () => {
  const record = new SinkRecord({
    topic: "in",
    kafkaPartition: 2,
    kafkaOffset: 41,
    value: "v",
    timestampType: "CreateTime",
  });
  const routed = record.newRecord({ topic: "out", kafkaPartition: null });
  assertEquals(routed.topic, "out");
  assertEquals(routed.kafkaPartition, 2);
  assertEquals(routed.kafkaOffset, 41);
  assertEquals(routed.originalTopic, "in");
  assertEquals(routed.originalKafkaOffset, 41);
  assertEquals(routed.timestampType, "CreateTime");
});

Deno.test("ConnectHeaders keeps order, validates against schemas and supports Kafka's operations", () => {
  const headers = new ConnectHeaders()
    .addString("a", "1")
    .addInt("b", 2)
    .add("a", "3", Schema.STRING_SCHEMA)
    .addTimestamp("ts", new Date(5));
  assertEquals(headers.size, 4);
  assertEquals(headers.lastWithName("a")!.value, "3");
  assertEquals(headers.allWithName("a").map((h) => h.value), ["1", "3"]);
  assertStrictEquals(headers.lastWithName("ts")!.schema, ConnectTimestamp.SCHEMA);
  assertThrows(
    () => headers.add("c", null, Schema.STRING_SCHEMA),
    Error,
    "A null value requires an optional schema but was Schema{STRING}",
  );
  assertThrows(() => headers.add("c", "x", Schema.INT32_SCHEMA), DataException);
  headers.retainLatest();
  assertEquals([...headers].map((h) => `${h.key}=${h.value}`), ["b=2", "a=3", "ts=" + new Date(5)]);
  headers.apply((h) => (h.key === "b" ? null : h.rename(h.key.toUpperCase())));
  assertEquals([...headers].map((h) => h.key), ["A", "TS"]);
  headers.remove("A");
  assertEquals(headers.size, 1);
  assert(headers.duplicate().clear().isEmpty());
  assertEquals(headers.size, 1);
});
