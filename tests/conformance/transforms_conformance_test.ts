/**
 * Our single message transforms and predicates against Kafka Connect's own (connect-transforms from Maven Central,
 * run by ConnectConformance.java), for one shared table of cases covering every transform we ship, $Key and $Value:
 * for the same record and config both give the same record (topic, partition, timestamp, key and value with their
 * schemas, headers), both drop it, or both throw the same exception class.
 *
 * Records travel as Connect envelopes read by each side's own JsonConverter (json_converter_conformance_test.ts
 * checks those readers agree).
 */
import { assertEquals } from "../support/assert.ts";
import { JsonConverter } from "../../src/connect/converters/json/json_converter.ts";
import { Header } from "../../src/connect/headers.ts";
import { SourceRecord } from "../../src/connect/record.ts";
import { findPredicate, findTransformation } from "../../src/connect/transforms/registry.ts";
import { ConnectError, startConnectHarness } from "./connect_harness.ts";
import { describeRecord, normalizeDescription, wholeDoublesAsNumbers } from "./describe.ts";

const T = "org.apache.kafka.connect.transforms.";
const P = "org.apache.kafka.connect.transforms.predicates.";
const TIMESTAMP = {
  type: "int64",
  name: "org.apache.kafka.connect.data.Timestamp",
  version: 1,
  optional: true,
};
const DECIMAL = { type: "bytes", name: "org.apache.kafka.connect.data.Decimal", parameters: { scale: "2" } };

const STRUCT_SCHEMA = {
  type: "struct",
  name: "com.example.Incident",
  fields: [
    { field: "id", type: "string" },
    { field: "number", type: "string" },
    { field: "priority", type: "int32" },
    { field: "active", type: "boolean" },
    { field: "amount", ...DECIMAL, optional: true },
    { field: "opened_at", ...TIMESTAMP },
    { field: "tags", type: "array", items: { type: "string" }, optional: true },
    {
      field: "details",
      type: "struct",
      optional: true,
      fields: [{ field: "a", type: "int32" }, { field: "b", type: "string", optional: true }],
    },
  ],
};
const STRUCT_PAYLOAD = {
  id: "a1",
  number: "INC0001",
  priority: 2,
  active: true,
  amount: "MDk=",
  opened_at: 1704164645000,
  tags: ["x", "y"],
  details: { a: 1, b: "deep" },
};
const SCHEMALESS_PAYLOAD = {
  id: "a1",
  number: "INC0001",
  priority: 2,
  opened: "2024-01-02 03:04:05",
  details: { a: 1, b: "deep" },
  price: 1.5,
};

const envelope = (schema: unknown, payload: unknown) => JSON.stringify({ schema, payload });
const STRUCT_VALUE = envelope(STRUCT_SCHEMA, STRUCT_PAYLOAD);
const MAP_VALUE = envelope(null, SCHEMALESS_PAYLOAD);
const STRING_KEY = envelope({ type: "string" }, "a1");
const STRUCT_KEY = envelope(
  { type: "struct", fields: [{ field: "id", type: "string" }, { field: "n", type: "int64" }] },
  { id: "a1", n: 5 },
);
const HEADERS = [
  { key: "h1", value: envelope({ type: "string" }, "v1") },
  { key: "h2", value: envelope({ type: "int32" }, 7) },
];

interface WireRecord {
  topic: string;
  partition: number | null;
  timestamp: number | null;
  key: string | null;
  value: string | null;
  headers: { key: string; value: string }[];
}

const record = (value: string | null, key: string | null = STRING_KEY): WireRecord => ({
  topic: "svc.incident",
  partition: 1,
  timestamp: 1704164645123,
  key,
  value,
  headers: HEADERS,
});

/** [transform class after org.apache.kafka.connect.transforms., config, record] */
const TRANSFORMS: Array<[string, Record<string, string>, WireRecord]> = [
  ["Cast$Value", { spec: "priority:string,active:int8,amount:float64" }, record(STRUCT_VALUE)],
  ["Cast$Value", { spec: "priority:float64,price:string" }, record(MAP_VALUE)],
  ["Cast$Key", { spec: "int64" }, record(null, envelope({ type: "int32" }, 42))],
  ["Cast$Key", { spec: "n:string" }, record(null, STRUCT_KEY)],
  ["DropHeaders", { headers: "h1,missing" }, record(STRUCT_VALUE)],
  ["ExtractField$Value", { field: "details" }, record(STRUCT_VALUE)],
  ["ExtractField$Value", { field: "number" }, record(MAP_VALUE)],
  ["ExtractField$Value", { field: "details.b", "field.syntax.version": "V2" }, record(STRUCT_VALUE)],
  ["ExtractField$Key", { field: "id" }, record(null, STRUCT_KEY)],
  ["Filter", {}, record(STRUCT_VALUE)],
  ["Flatten$Value", {}, record(STRUCT_VALUE)],
  ["Flatten$Value", { delimiter: "_" }, record(MAP_VALUE)],
  ["Flatten$Key", {}, record(null, STRUCT_KEY)],
  [
    "HeaderFrom$Value",
    { fields: "number,priority", headers: "num,prio", operation: "copy" },
    record(STRUCT_VALUE),
  ],
  ["HeaderFrom$Value", { fields: "number", headers: "num", operation: "move" }, record(MAP_VALUE)],
  ["HeaderFrom$Key", { fields: "id", headers: "key-id", operation: "copy" }, record(null, STRUCT_KEY)],
  ["HoistField$Value", { field: "wrapped" }, record(STRUCT_VALUE)],
  ["HoistField$Value", { field: "wrapped" }, record(MAP_VALUE)],
  ["HoistField$Key", { field: "k" }, record(null)],
  [
    "InsertField$Value",
    {
      "topic.field": "t",
      "partition.field": "p",
      "timestamp.field": "ts",
      "static.field": "origin",
      "static.value": "tablesync",
    },
    record(STRUCT_VALUE),
  ],
  [
    "InsertField$Value",
    { "topic.field": "t!", "timestamp.field": "ts", "static.field": "s" },
    record(MAP_VALUE),
  ],
  ["InsertField$Key", { "topic.field": "t" }, record(null, STRUCT_KEY)],
  ["InsertHeader", { header: "added", "value.literal": "42" }, record(STRUCT_VALUE)],
  ["MaskField$Value", { fields: "number,priority,active,opened_at,tags" }, record(STRUCT_VALUE)],
  ["MaskField$Value", { fields: "number", replacement: "***" }, record(STRUCT_VALUE)],
  ["MaskField$Value", { fields: "number,priority,price" }, record(MAP_VALUE)],
  ["MaskField$Key", { fields: "n" }, record(null, STRUCT_KEY)],
  ["RegexRouter", { regex: "svc\\.(.*)", replacement: "mirror.$1" }, record(STRUCT_VALUE)],
  ["RegexRouter", { regex: "nomatch", replacement: "x" }, record(STRUCT_VALUE)],
  ["ReplaceField$Value", { include: "id,number,priority", renames: "number:num" }, record(STRUCT_VALUE)],
  ["ReplaceField$Value", { exclude: "details,price" }, record(MAP_VALUE)],
  ["ReplaceField$Key", { renames: "id:key_id" }, record(null, STRUCT_KEY)],
  [
    "SetSchemaMetadata$Value",
    { "schema.name": "com.example.Renamed", "schema.version": "5" },
    record(STRUCT_VALUE),
  ],
  ["SetSchemaMetadata$Key", { "schema.name": "k.Name" }, record(null, STRUCT_KEY)],
  [
    "TimestampConverter$Value",
    { field: "opened_at", "target.type": "string", format: "yyyy-MM-dd'T'HH:mm:ss.SSS" },
    record(STRUCT_VALUE),
  ],
  ["TimestampConverter$Value", { field: "opened_at", "target.type": "unix" }, record(STRUCT_VALUE)],
  ["TimestampConverter$Value", { field: "opened_at", "target.type": "Date" }, record(STRUCT_VALUE)],
  [
    "TimestampConverter$Value",
    { field: "opened", "target.type": "Timestamp", format: "yyyy-MM-dd HH:mm:ss" },
    record(MAP_VALUE),
  ],
  [
    "TimestampConverter$Value",
    { field: "opened", "target.type": "unix", format: "yyyy-MM-dd HH:mm:ss", "unix.precision": "seconds" },
    record(MAP_VALUE),
  ],
  [
    "TimestampConverter$Key",
    { "target.type": "string", format: "yyyyMMdd" },
    record(null, envelope(TIMESTAMP, 0)),
  ],
  [
    "TimestampRouter",
    { "topic.format": "${topic}-${timestamp}", "timestamp.format": "yyyyMMdd" },
    record(null),
  ],
  ["ValueToKey", { fields: "id,number" }, record(STRUCT_VALUE)],
  ["ValueToKey", { fields: "id,price" }, record(MAP_VALUE)],
  ["ValueToKey", { fields: "absent" }, record(STRUCT_VALUE)],
];

/** [predicate class after ...predicates., config, record] */
const PREDICATES: Array<[string, Record<string, string>, WireRecord]> = [
  ["HasHeaderKey", { name: "h1" }, record(STRUCT_VALUE)],
  ["HasHeaderKey", { name: "absent" }, record(STRUCT_VALUE)],
  ["RecordIsTombstone", {}, record(null)],
  ["RecordIsTombstone", {}, record(STRUCT_VALUE)],
  ["TopicNameMatches", { pattern: ".*\\.incident" }, record(STRUCT_VALUE)],
  ["TopicNameMatches", { pattern: "incident" }, record(STRUCT_VALUE)],
];

const reader = new JsonConverter();
reader.configure({ "schemas.enable": "true" }, false);

function read(text: string | null) {
  return text === null
    ? { schema: null, value: null }
    : reader.toConnectData("t", new TextEncoder().encode(text));
}

function ourRecord(wire: WireRecord): SourceRecord {
  const key = read(wire.key);
  const value = read(wire.value);
  return new SourceRecord({
    topic: wire.topic,
    kafkaPartition: wire.partition,
    timestamp: wire.timestamp,
    keySchema: key.schema,
    key: key.value,
    valueSchema: value.schema,
    value: value.value,
    headers: wire.headers.map(({ key, value }) => {
      const v = read(value);
      return new Header(key, v.schema, v.value);
    }),
  });
}

/** The record (or null) our side gives, or the class name of what it threw. */
function ours(apply: () => unknown): unknown {
  try {
    return apply();
  } catch (error) {
    return { threw: (error as Error).name };
  }
}

/** Connect's answer in the same form. */
async function theirs(request: Promise<any>, field: string): Promise<unknown> {
  try {
    return (await request)[field];
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    return { threw: error.message.slice(0, error.message.indexOf(":")) };
  }
}

Deno.test("transforms give the same records as Kafka Connect's, $Key and $Value", async (t) => {
  await using connect = await startConnectHarness();
  for (const [name, config, wire] of TRANSFORMS) {
    await t.step(`${name} ${JSON.stringify(config)}`, async () => {
      const expected = await theirs(
        connect.request({ op: "transform", class: T + name, config, record: wire }),
        "record",
      );
      const actual = ours(() => {
        const transform = findTransformation(T + name)!.create<SourceRecord>();
        transform.configure(config);
        const result = transform.apply(ourRecord(wire));
        return result === null ? null : describeRecord(result);
      });
      const comparable = (d: unknown) => wholeDoublesAsNumbers(normalizeDescription(d));
      assertEquals(comparable(actual), comparable(expected));
    });
  }
});

Deno.test("MaskField on a Decimal: the one intended difference from Kafka Connect", async () => {
  // Connect masks a Decimal with BigDecimal.ZERO (scale 0), which its own Decimal serialisation then rejects for a
  // schema of any other scale; ours masks with zero at the schema's scale, which serialises (mask_field.ts).
  await using connect = await startConnectHarness();
  const config = { fields: "amount" };
  const wire = record(STRUCT_VALUE);
  const theirs = await connect.request({
    op: "transform",
    class: T + "MaskField$Value",
    config,
    record: wire,
  });
  assertEquals(theirs.record.value.value.struct.amount, { decimal: "0" });
  const transform = findTransformation(T + "MaskField$Value")!.create<SourceRecord>();
  transform.configure(config);
  const ours = describeRecord(transform.apply(ourRecord(wire))!) as any;
  assertEquals(ours.value.value.struct.amount, { decimal: "0.00" });
});

Deno.test("predicates give the same answers as Kafka Connect's", async (t) => {
  await using connect = await startConnectHarness();
  for (const [name, config, wire] of PREDICATES) {
    await t.step(
      `${name} ${JSON.stringify(config)} on ${wire.value === null ? "a tombstone" : "a record"}`,
      async () => {
        const expected = await theirs(
          connect.request({ op: "predicate", class: P + name, config, record: wire }),
          "result",
        );
        const actual = ours(() => {
          const predicate = findPredicate(P + name)!.create<SourceRecord>();
          predicate.configure(config);
          return predicate.test(ourRecord(wire));
        });
        assertEquals(actual, expected);
      },
    );
  }
});
