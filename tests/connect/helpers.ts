/** Small helpers shared by the Connect tests. */
import { assert } from "../support/assert.ts";
import type { Schema, SchemaAndValue } from "../../src/connect/schema.ts";
import { schemaEquals } from "../../src/connect/schema.ts";
import { valuesEqual } from "../../src/connect/equality.ts";
import { JsonConverter } from "../../src/connect/converters/json/json_converter.ts";

export const TOPIC = "topic";

export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** A JsonConverter configured with `configs` (a value converter). */
export function jsonConverter(configs: Record<string, string> = {}): JsonConverter {
  const c = new JsonConverter();
  c.configure(configs, false);
  return c;
}

export function text(data: Uint8Array | null): string | null {
  return data === null ? null : new TextDecoder().decode(data);
}

/** Asserts schema equality (Kafka's Schema.equals) and deep value equality (Connect semantics). */
export function assertSchemaAndValue(actual: SchemaAndValue, schema: Schema | null, value: unknown): void {
  assert(
    schemaEquals(schema, actual.schema) || (schema === null && actual.schema === null),
    `schema: expected ${schema}, got ${actual.schema}`,
  );
  assert(
    valuesEqual(actual.value, value),
    `value: expected ${String(value)}, got ${String(actual.value)}`,
  );
}
