/** Connect records and headers. */
import assert from "node:assert/strict";
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
  assert.equal(copy.topic, "t2");
  assert.equal(copy.key, "abc");
  assert.equal(copy.value, null);
  assert.equal(copy.timestamp, 1727784000000);
  assert.deepEqual(copy.sourceOffset, record.sourceOffset);
  assert.equal(copy.headers.lastWithName("svc.table")!.value, "incident");
  copy.headers.addString("x", "y");
  assert.equal(record.headers.size, 1, "the copy's headers are independent");
  assert.equal(record.newRecord({ kafkaPartition: 3 }).kafkaPartition, 3);
  assert.match(String(copy), /^SourceRecord\{sourcePartition=\{table=incident\}.* ConnectRecord\{topic='t2'/);
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
  assert.equal(routed.topic, "out");
  assert.equal(routed.kafkaPartition, 2);
  assert.equal(routed.kafkaOffset, 41);
  assert.equal(routed.originalTopic, "in");
  assert.equal(routed.originalKafkaOffset, 41);
  assert.equal(routed.timestampType, "CreateTime");
});

Deno.test("ConnectHeaders keeps order, validates against schemas and supports Kafka's operations", () => {
  const headers = new ConnectHeaders()
    .addString("a", "1")
    .addInt("b", 2)
    .add("a", "3", Schema.STRING_SCHEMA)
    .addTimestamp("ts", new Date(5));
  assert.equal(headers.size, 4);
  assert.equal(headers.lastWithName("a")!.value, "3");
  assert.deepEqual(headers.allWithName("a").map((h) => h.value), ["1", "3"]);
  assert.equal(headers.lastWithName("ts")!.schema, ConnectTimestamp.SCHEMA);
  assert.throws(() => headers.add("c", null, Schema.STRING_SCHEMA), {
    message: "A null value requires an optional schema but was Schema{STRING}",
  });
  assert.throws(() => headers.add("c", "x", Schema.INT32_SCHEMA), DataException);
  headers.retainLatest();
  assert.deepEqual([...headers].map((h) => `${h.key}=${h.value}`), ["b=2", "a=3", "ts=" + new Date(5)]);
  headers.apply((h) => (h.key === "b" ? null : h.rename(h.key.toUpperCase())));
  assert.deepEqual([...headers].map((h) => h.key), ["A", "TS"]);
  headers.remove("A");
  assert.equal(headers.size, 1);
  assert.ok(headers.duplicate().clear().isEmpty());
  assert.equal(headers.size, 1);
});
