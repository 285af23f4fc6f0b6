/**
 * The sink takes what each registry converter read back (the Struct path) and writes the expected bodies to the
 * simulated instance, logical types rendered as the instance expects.
 */
import { assertEquals } from "../../support/assert.ts";
import { startSchemaRegistry } from "../../support/schema_registry.ts";
import { seedIncident, startHarness } from "../../sink/support/harness.ts";
import { sinkRecord } from "../../sink/support/records.ts";
import { BigDecimal } from "../../../src/connect/big_decimal.ts";
import type { Converter } from "../../../src/connect/converters/converter.ts";
import { ConnectDate, ConnectDecimal, ConnectTimestamp } from "../../../src/connect/logical.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { AvroConverter } from "../../../src/connect/registry/avro/avro_converter.ts";
import { JsonSchemaConverter } from "../../../src/connect/registry/json_schema/json_schema_converter.ts";
import { ProtobufConverter } from "../../../src/connect/registry/protobuf/protobuf_converter.ts";
import { read, write } from "./fixtures.ts";

const schema = SchemaBuilder.struct().name("tablesync.incident").version(1)
  .field("short_description", Schema.OPTIONAL_STRING_SCHEMA)
  .field("opened_at", ConnectTimestamp.builder().optional().build())
  .field("due_date", ConnectDate.builder().optional().build())
  .field("time_worked", ConnectDecimal.builder(3).optional().build())
  .field("active", Schema.OPTIONAL_BOOLEAN_SCHEMA)
  .field("close_notes", Schema.OPTIONAL_STRING_SCHEMA)
  .build();

const value = new Struct(schema)
  .put("short_description", "from the registry")
  .put("opened_at", new Date(Date.UTC(2024, 4, 6, 22, 1, 2)))
  .put("due_date", new Date(Date.UTC(2024, 4, 31)))
  .put("time_worked", new BigDecimal(1500n, 3))
  .put("active", true);

const EXPECTED = {
  short_description: "from the registry",
  opened_at: "2024-05-06 22:01:02",
  due_date: "2024-05-31",
  time_worked: "1.500",
  active: "true",
};

const CASES: Array<[string, () => Converter, Record<string, string>, Record<string, string>]> = [
  ["Avro", () => new AvroConverter(), {}, EXPECTED],
  ["JSON Schema", () => new JsonSchemaConverter(), {}, EXPECTED],
  ["Protobuf with wrappers", () => new ProtobufConverter(), { "wrapper.for.nullables": "true" }, EXPECTED],
  // Confluent's default Protobuf mapping has no null for plain proto3 strings: the null arrives as "".
  ["Protobuf (defaults)", () => new ProtobufConverter(), {}, { ...EXPECTED, close_notes: "" }],
];

for (const [name, create, settings, expected] of CASES) {
  Deno.test(`the sink writes what the ${name} converter produced`, async () => {
    await using registry = startSchemaRegistry();
    const producer = create();
    producer.configure({ "schema.registry.url": registry.url, ...settings }, false);
    const bytes = await write(producer, schema, value, "incidents");
    const consumer = create();
    consumer.configure({ "schema.registry.url": registry.url, ...settings }, false);
    const data = await read(consumer, bytes, "incidents");

    await using h = await startHarness();
    const sysId = seedIncident(h.sim);
    await h.put(sinkRecord({ offset: 0, key: sysId, value: data.value, valueSchema: data.schema }));
    assertEquals(h.context.recordErrors, []);
    assertEquals(h.proxy.writes().map((r) => [r.method, r.path, r.body]), [
      ["PATCH", `/api/now/table/incident/${sysId}`, expected],
    ]);
  });
}
