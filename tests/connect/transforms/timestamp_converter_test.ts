import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException, DataException } from "../../../src/connect/errors.ts";
import { ConnectDate, ConnectTime, ConnectTimestamp } from "../../../src/connect/logical.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { applied, source, transform } from "./helpers.ts";

// Kafka's TimestampConverterTest fixtures.
const DATE = new Date(Date.UTC(2017, 0, 1));
const DATE_PLUS_TIME = new Date(Date.UTC(2017, 0, 1, 0, 0, 1, 234));
const DATE_PLUS_TIME_UNIX = 1483228801234;
const TIME = new Date(1234);
const STRING_DATE_FMT = "yyyy MM dd HH mm ss SSS z";
const DATE_PLUS_TIME_STRING = "2017 01 01 00 00 01 234 UTC";

function convert(props: Record<string, string>, value: unknown, schema: Schema | null = null) {
  const out = applied(transform("TimestampConverter$Value", props), source({ valueSchema: schema, value }));
  return { schema: out.valueSchema, value: out.value };
}

Deno.test("TimestampConverter schemaless whole value: Timestamp to every target type", () => {
  assertEquals(convert({ "target.type": "Timestamp" }, DATE_PLUS_TIME).value, DATE_PLUS_TIME);
  assertEquals(convert({ "target.type": "Date" }, DATE_PLUS_TIME).value, DATE);
  assertEquals(convert({ "target.type": "Time" }, DATE_PLUS_TIME).value, TIME);
  assertEquals(convert({ "target.type": "unix" }, DATE_PLUS_TIME).value, DATE_PLUS_TIME_UNIX);
  assertEquals(
    convert({ "target.type": "string", format: STRING_DATE_FMT }, DATE_PLUS_TIME).value,
    DATE_PLUS_TIME_STRING,
  );
});

Deno.test("TimestampConverter parses strings with the SimpleDateFormat pattern", () => {
  assertEquals(
    convert({ "target.type": "Timestamp", format: STRING_DATE_FMT }, DATE_PLUS_TIME_STRING).value,
    DATE_PLUS_TIME,
  );
  assertEquals(
    convert({ "target.type": "unix", format: "yyyy-MM-dd HH:mm:ss" }, "2017-01-01 00:00:01").value,
    1483228801000,
  );
  assertEquals(convert({ "target.type": "Date", format: "yyyyMMdd" }, "20170101").value, DATE);
  assertThrows(
    () => convert({ "target.type": "Timestamp", format: "yyyy-MM-dd" }, "not a date"),
    DataException,
    "Could not parse timestamp: value (not a date) does not match pattern (yyyy-MM-dd)",
  );
});

Deno.test("TimestampConverter unix.precision reads and writes seconds, micros and nanos, truncating", () => {
  assertEquals(
    convert({ "target.type": "Timestamp", "unix.precision": "seconds" }, 1483228801).value,
    new Date(1483228801000),
  );
  assertEquals(
    convert({ "target.type": "Timestamp", "unix.precision": "nanoseconds" }, 1483228801234567890n).value,
    DATE_PLUS_TIME,
  );
  assertEquals(
    convert({ "target.type": "unix", "unix.precision": "microseconds" }, DATE_PLUS_TIME).value,
    1483228801234000,
  );
  assertEquals(
    convert({ "target.type": "unix", "unix.precision": "nanoseconds" }, DATE_PLUS_TIME).value,
    1483228801234000000n,
  );
  assertEquals(
    convert({ "target.type": "unix", "unix.precision": "seconds" }, DATE_PLUS_TIME).value,
    1483228801,
  );
});

Deno.test("TimestampConverter with schema: whole value takes the target schema and keeps optionality", () => {
  const out = convert(
    { "target.type": "Date" },
    DATE_PLUS_TIME,
    ConnectTimestamp.builder().optional().build(),
  );
  assert(out.schema!.equals(ConnectDate.builder().optional().build()));
  assertEquals(out.value, DATE);
  const fromUnix = convert({ "target.type": "Time" }, DATE_PLUS_TIME_UNIX, Schema.INT64_SCHEMA);
  assert(fromUnix.schema!.equals(ConnectTime.SCHEMA));
  assertEquals(fromUnix.value, TIME);
});

Deno.test("TimestampConverter converts one Struct field and keeps the others", () => {
  const schema = SchemaBuilder.struct().name("row").field("ts", Schema.STRING_SCHEMA)
    .field("other", Schema.STRING_SCHEMA).build();
  const value = new Struct(schema).put("ts", "2017-01-01 00:00:01").put("other", "x");
  const out = convert(
    { field: "ts", "target.type": "Timestamp", format: "yyyy-MM-dd HH:mm:ss" },
    value,
    schema,
  );
  assert(out.schema!.field("ts")!.schema.equals(ConnectTimestamp.SCHEMA));
  assertEquals(out.schema!.name, "row");
  assertEquals([(out.value as Struct).get("ts"), (out.value as Struct).get("other")], [
    new Date(1483228801000),
    "x",
  ]);
});

Deno.test("TimestampConverter schemaless field in a map; null stays null", () => {
  const out = convert({ field: "ts", "target.type": "unix" }, { ts: DATE_PLUS_TIME, other: 1 });
  assertEquals(out.value, { ts: DATE_PLUS_TIME_UNIX, other: 1 });
  assertEquals(convert({ field: "ts", "target.type": "unix" }, { ts: null }).value, { ts: null });
  assertEquals(convert({ "target.type": "unix" }, null).value, null);
});

Deno.test("TimestampConverter config errors", () => {
  assertThrows(
    () => transform("TimestampConverter$Value", {}),
    ConfigException,
    'Missing required configuration "target.type"',
  );
  assertThrows(
    () => transform("TimestampConverter$Value", { "target.type": "foo" }),
    ConfigException,
    "String must be one of: string, unix, Date, Time, Timestamp",
  );
  assertThrows(
    () => transform("TimestampConverter$Value", { "target.type": "string" }),
    ConfigException,
    "TimestampConverter requires format option to be specified when using string timestamps",
  );
  assertThrows(
    () => transform("TimestampConverter$Value", { "target.type": "string", format: "bad-format" }),
    ConfigException,
    "TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: bad-format",
  );
});
