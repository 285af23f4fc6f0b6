/** Structs shaped like the source's strings and typed modes, and converter set-up against the test registry. */
import { BigDecimal } from "../../../src/connect/big_decimal.ts";
import type { Converter } from "../../../src/connect/converters/converter.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../../src/connect/logical.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Struct } from "../../../src/connect/struct.ts";
import {
  fromConnectDataAsync,
  toConnectDataAsync,
} from "../../../src/connect/converters/preparing_converter.ts";

export const TOPIC = "servicenow.incident";

/** A strings-mode value schema: every field an optional STRING, versioned like the source's StructValues. */
export function stringsSchema(fields: readonly string[], version = 1): Schema {
  const b = SchemaBuilder.struct().name("tablesync.incident").version(version);
  for (const f of fields) b.field(f, Schema.OPTIONAL_STRING_SCHEMA);
  return b.build();
}

export function stringsValue(schema: Schema, values: Record<string, string | null>): Struct {
  const s = new Struct(schema);
  for (const [k, v] of Object.entries(values)) s.put(k, v);
  return s;
}

/** A typed-mode value schema with every logical type the source produces. */
export function typedSchema(): Schema {
  return SchemaBuilder.struct().name("tablesync.incident").version(1)
    .field("sys_id", Schema.OPTIONAL_STRING_SCHEMA)
    .field("short_description", Schema.OPTIONAL_STRING_SCHEMA)
    .field("priority", Schema.OPTIONAL_INT32_SCHEMA)
    .field("reassignment_count", Schema.OPTIONAL_INT64_SCHEMA)
    .field("active", Schema.OPTIONAL_BOOLEAN_SCHEMA)
    .field("business_stc", Schema.OPTIONAL_FLOAT64_SCHEMA)
    .field("cost", ConnectDecimal.builder(2).optional().build())
    .field("opened_at", ConnectTimestamp.builder().optional().build())
    .field("due_date", ConnectDate.builder().optional().build())
    .field("work_start", ConnectTime.builder().optional().build())
    .field("close_notes", Schema.OPTIONAL_STRING_SCHEMA)
    .build();
}

export const TYPED_VALUES = {
  sys_id: "46d44a5e2f3e1110b1e2e3f4a5b6c7d8",
  short_description: "Email down — ünïcödé ✓",
  priority: 2,
  reassignment_count: 42,
  active: true,
  business_stc: 1234.5,
  cost: new BigDecimal(-12345n, 2),
  opened_at: new Date(Date.UTC(2024, 9, 1, 12, 0, 5)),
  due_date: new Date(Date.UTC(2024, 9, 31)),
  work_start: new Date(9 * 3600_000 + 30 * 60_000 + 15_000),
  close_notes: null,
} as const;

export function typedValue(schema: Schema = typedSchema()): Struct {
  const s = new Struct(schema);
  for (const [k, v] of Object.entries(TYPED_VALUES)) s.put(k, v);
  return s;
}

/** Converts through the prepare step, as the runtime does. */
export async function write(converter: Converter, schema: Schema | null, value: unknown, topic = TOPIC) {
  return await fromConnectDataAsync(converter, topic, schema, value);
}

export async function read(converter: Converter, bytes: Uint8Array | null, topic = TOPIC) {
  return await toConnectDataAsync(converter, topic, bytes);
}

/** The schema id in framed bytes. */
export function schemaIdOf(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getInt32(1, false);
}

export function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");
}

export function fromHex(text: string): Uint8Array {
  return Uint8Array.from(text.trim().split(/\s+/), (h) => parseInt(h, 16));
}
