/** Input handling (Struct, Map, String holding JSON, other primitives, null) and value rendering. */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { BigDecimal } from "../../src/connect/big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../src/connect/logical.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import { mapBody } from "../../src/sink/field_rules/mod.ts";
import { readInput } from "../../src/sink/input.ts";
import { MappingError } from "../../src/sink/record_error.ts";
import { renderScalar } from "../../src/sink/render.ts";
import { settingsOf } from "./support/settings.ts";

const fields = settingsOf().fields;

function body(value: unknown, schema: Parameters<typeof readInput>[1] = null): Record<string, string> {
  const input = readInput(value, schema);
  assert(input !== null, "expected fields");
  return mapBody(input, fields);
}

Deno.test("a Struct renders every logical type the way the instance stores it", () => {
  const schema = SchemaBuilder.struct().name("incident")
    .field("opened_at", ConnectTimestamp.SCHEMA)
    .field("due_date", ConnectDate.SCHEMA)
    .field("work_start", ConnectTime.SCHEMA)
    .field("amount", ConnectDecimal.schema(2))
    .field("active", Schema.BOOLEAN_SCHEMA)
    .field("reassignment_count", Schema.INT32_SCHEMA)
    .field("big", Schema.INT64_SCHEMA)
    .field("ratio", Schema.FLOAT64_SCHEMA)
    .field("attachment", Schema.BYTES_SCHEMA)
    .field("short_description", Schema.STRING_SCHEMA)
    .build();
  const value = new Struct(schema)
    .put("opened_at", new Date(Date.UTC(2024, 1, 29, 13, 5, 9, 876)))
    .put("due_date", new Date(Date.UTC(2024, 11, 31)))
    .put("work_start", new Date(Date.UTC(1970, 0, 1, 7, 30, 15)))
    .put("amount", new BigDecimal(-123456789012345678901n, 2))
    .put("active", false)
    .put("reassignment_count", 3)
    .put("big", 9223372036854775807n)
    .put("ratio", 0.0000001)
    .put("attachment", new Uint8Array([0, 156, 255]))
    .put("short_description", "printer on fire");
  assertEquals(body(value, schema), {
    opened_at: "2024-02-29 13:05:09",
    due_date: "2024-12-31",
    work_start: "07:30:15",
    amount: "-1234567890123456789.01",
    active: "false",
    reassignment_count: "3",
    big: "9223372036854775807",
    ratio: "0.0000001",
    attachment: "AJz/",
    short_description: "printer on fire",
  });
});

Deno.test("a Map (JSON without schemas) renders values by their runtime type", () => {
  const value = new Map<string, unknown>([
    ["short_description", "disk full"],
    ["urgency", 2],
    ["active", true],
    ["huge", 1e21],
    ["opened_at", new Date(Date.UTC(2023, 6, 1, 0, 0, 1))],
  ]);
  assertEquals(body(value), {
    short_description: "disk full",
    urgency: "2",
    active: "true",
    huge: "1000000000000000000000",
    opened_at: "2023-07-01 00:00:01",
  });
  // A plain object is a Map too (Connect allows either representation).
  assertEquals(body({ category: "network", priority: 1 }), { category: "network", priority: "1" });
});

Deno.test("a typed Map keeps its value schema, so logical values still render", () => {
  const schema = SchemaBuilder.map(Schema.STRING_SCHEMA, ConnectDate.SCHEMA).build();
  const value = new Map([["due_date", new Date(Date.UTC(2025, 2, 4))]]);
  assertEquals(body(value, schema), { due_date: "2025-03-04" });
});

Deno.test("a String holding a JSON object is parsed, numbers kept digit for digit", () => {
  const text = '{"short_description":"vpn down","amount":12345678901234567890.10,"count":7,"exp":1E+3,' +
    '"flag":false,"note":null}';
  assertEquals(body(text), {
    short_description: "vpn down",
    amount: "12345678901234567890.10",
    count: "7",
    exp: "1000",
    flag: "false",
  });
});

Deno.test("a String that is not a JSON object is a record error naming what it holds", () => {
  assertThrows(() => readInput("not json", null), MappingError, "not JSON");
  assertThrows(() => readInput("[1,2]", null), MappingError, "a JSON array, not a JSON object");
  assertThrows(() => readInput('"text"', null), MappingError, "a JSON string, not a JSON object");
});

Deno.test("any other primitive value is a record error", () => {
  for (const value of [42, 4.2, true, 12n, new Uint8Array([1]), [{ a: 1 }]]) {
    assertThrows(() => readInput(value, null), MappingError, "the sink writes a Struct, a Map or a String");
  }
});

Deno.test("a null value has no fields: the operation decides", () => {
  assertEquals(readInput(null, null), null);
  assertEquals(readInput(undefined, null), null);
});

Deno.test("a Map with a non-String key is a record error", () => {
  assertThrows(() => readInput(new Map([[1, "x"]]), null), MappingError, "field names must be strings");
});

Deno.test("values the instance cannot store are record errors naming the field", () => {
  assertThrows(() => renderScalar(null, NaN, "impact"), MappingError, '"impact"');
  assertThrows(() => renderScalar(null, Infinity, "impact"), MappingError, "Infinity");
  assertThrows(
    () => renderScalar(ConnectTimestamp.SCHEMA, new Date(Date.UTC(10000, 0, 1)), "opened_at"),
    MappingError,
    "0000-9999",
  );
});
