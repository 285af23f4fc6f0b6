/**
 * JsonSchemaConverter against the test registry: the registered JSON Schema, payloads that plain JSON.parse and
 * ajv (validating against the registered schema) accept, round trips, growth, Confluent's documented bytes.
 */
import { Ajv } from "ajv";
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { startSchemaRegistry } from "../../support/schema_registry.ts";
import { JsonSchemaConverter } from "../../../src/connect/registry/json_schema/json_schema_converter.ts";
import { BigDecimal } from "../../../src/connect/big_decimal.ts";
import { DataException } from "../../../src/connect/errors.ts";
import type { Struct } from "../../../src/connect/struct.ts";
import {
  fromHex,
  read,
  schemaIdOf,
  stringsSchema,
  stringsValue,
  TOPIC,
  TYPED_VALUES,
  typedSchema,
  typedValue,
  write,
} from "./fixtures.ts";

function jsonSchema(url: string, extra: Record<string, string> = {}): JsonSchemaConverter {
  const c = new JsonSchemaConverter();
  c.configure({ "schema.registry.url": url, ...extra }, false);
  return c;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes.subarray(5));

Deno.test("strings mode: optional strings as oneOf null/string with connect.index; JSON payload round-trips", async () => {
  await using registry = startSchemaRegistry();
  const schema = stringsSchema(["sys_id", "short_description"]);
  const value = stringsValue(schema, { sys_id: "abc", short_description: null });
  const bytes = (await write(jsonSchema(registry.url), schema, value))!;
  const [registered] = registry.versions(`${TOPIC}-value`);
  assertEquals(registered.schemaType, "JSON");
  assertEquals(JSON.parse(registered.schema), {
    type: "object",
    title: "tablesync.incident",
    properties: {
      sys_id: { "connect.index": 0, oneOf: [{ type: "null" }, { type: "string" }] },
      short_description: { "connect.index": 1, oneOf: [{ type: "null" }, { type: "string" }] },
    },
    "connect.version": 1,
  });
  assertEquals(schemaIdOf(bytes), registered.id);
  assertEquals(text(bytes), '{"sys_id":"abc","short_description":null}');
  const ajv = new Ajv({ strict: false });
  assert(ajv.validate(JSON.parse(registered.schema), JSON.parse(text(bytes))), JSON.stringify(ajv.errors));

  const back = await read(jsonSchema(registry.url), bytes);
  assert(back.schema!.equals(schema), `${back.schema}`);
  assert((back.value as Struct).equals(value));
});

Deno.test("typed mode: connect.type and logical titles; values as JSON numbers and base64 decimals", async () => {
  await using registry = startSchemaRegistry();
  const schema = typedSchema();
  const bytes = (await write(jsonSchema(registry.url), schema, typedValue(schema)))!;
  const registered = JSON.parse(registry.versions(`${TOPIC}-value`)[0].schema);
  assertEquals(registered.properties.cost.oneOf[1], {
    type: "number",
    title: "org.apache.kafka.connect.data.Decimal",
    "connect.type": "bytes",
    "connect.version": 1,
    "connect.parameters": { scale: "2" },
  });
  assertEquals(registered.properties.opened_at.oneOf[1], {
    type: "integer",
    title: "org.apache.kafka.connect.data.Timestamp",
    "connect.type": "int64",
    "connect.version": 1,
  });
  assertEquals(registered.properties.priority.oneOf[1], { type: "integer", "connect.type": "int32" });
  const payload = JSON.parse(text(bytes));
  assertEquals(payload, {
    sys_id: TYPED_VALUES.sys_id,
    short_description: TYPED_VALUES.short_description,
    priority: 2,
    reassignment_count: 42,
    active: true,
    business_stc: 1234.5,
    cost: "z8c=", // base64 of CF C7, -12345 unscaled
    opened_at: Date.UTC(2024, 9, 1, 12, 0, 5),
    due_date: Date.UTC(2024, 9, 31) / 86_400_000,
    work_start: 9 * 3600_000 + 30 * 60_000 + 15_000,
    close_notes: null,
  });
  const back = await read(jsonSchema(registry.url), bytes);
  assert(back.schema!.equals(schema), `${back.schema}`);
  assert((back.value as Struct).equals(typedValue(schema)), `${back.value}`);

  const numeric =
    (await write(jsonSchema(registry.url, { "decimal.format": "NUMERIC" }), schema, typedValue(schema)))!;
  assertEquals(JSON.parse(text(numeric)).cost, -123.45);
  const viaNumber = (await read(jsonSchema(registry.url), numeric)).value as Struct;
  assertEquals((viaNumber.get("cost") as BigDecimal).toString(), "-123.45");
});

Deno.test("a growing strings schema registers version 2", async () => {
  await using registry = startSchemaRegistry();
  const converter = jsonSchema(registry.url);
  const v1 = stringsSchema(["sys_id"], 1);
  const v2 = stringsSchema(["sys_id", "category"], 2);
  await write(converter, v1, stringsValue(v1, { sys_id: "a" }));
  const second = (await write(converter, v2, stringsValue(v2, { sys_id: "b", category: "x" })))!;
  assertEquals(registry.versions(`${TOPIC}-value`).map((v) => v.version), [1, 2]);
  assertEquals(
    (await read(jsonSchema(registry.url), second)).schema!.field("category")!.schema.isOptional,
    true,
  );
});

Deno.test("Confluent's documented JSON Schema example bytes decode", async () => {
  await using registry = startSchemaRegistry();
  registry.register(
    `${TOPIC}-value`,
    '{"type":"object","properties":{"f1":{"type":"string"}}}',
    "JSON",
  );
  // magic 0, id 1, then {"f1":"value1"}
  const bytes = fromHex("00 00 00 00 01 7b 22 66 31 22 3a 22 76 61 6c 75 65 31 22 7d");
  const back = await read(jsonSchema(registry.url), bytes);
  assertEquals(back.schema!.version, 1);
  assertEquals((back.value as Struct).get("f1"), "value1");
});

Deno.test("schemaless values are rejected by the JSON Schema converter", async () => {
  await using registry = startSchemaRegistry();
  await assertRejects(() => write(jsonSchema(registry.url), null, { a: 1 }), DataException, "needs a schema");
});
