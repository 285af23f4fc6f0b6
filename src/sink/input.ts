/**
 * Sink input handling: what a converted record value becomes before the field rules run.
 *
 * | Value                                  | Result                                                       |
 * |----------------------------------------|--------------------------------------------------------------|
 * | Struct (registry converters, JSON with schemas) | its fields, each with its field schema (logical types kept) |
 * | Map (JSON without schemas)             | its entries, typed by their runtime values                   |
 * | String holding a JSON object           | the object's members; numbers kept exact (as BigDecimal)     |
 * | null                                   | a null value: the operation decides (a delete, or an error)  |
 * | anything else                          | a record error                                               |
 */
import { BigDecimal } from "../connect/big_decimal.ts";
import type { JsonNode } from "../connect/converters/json/json_node.ts";
import { parseJson } from "../connect/converters/json/json_parser.ts";
import type { Schema } from "../connect/schema.ts";
import { describeValueType, isConnectMap, Struct } from "../connect/struct.ts";
import { type ConnectMap, mapEntries } from "../connect/values.ts";
import { MappingError } from "./record_error.ts";

/** One top-level field of the value: its name, the schema it came with (null when schemaless), its value. */
export interface InputField {
  readonly name: string;
  readonly schema: Schema | null;
  readonly value: unknown;
}

/** The fields of a value, or `null` for a null value (a tombstone). */
export type SinkInput = readonly InputField[] | null;

export function readInput(value: unknown, schema: Schema | null): SinkInput {
  if (value === null || value === undefined) return null;
  if (value instanceof Struct) return structFields(value);
  if (isConnectMap(value)) return mapFields(value, schema?.type === "MAP" ? schema.valueSchema() : null);
  if (typeof value === "string") return jsonObjectFields(value);
  throw new MappingError(
    `the record value is a ${
      describeValueType(value)
    }; the sink writes a Struct, a Map or a String holding a JSON object`,
  );
}

function structFields(struct: Struct): InputField[] {
  return struct.schema.fields().map((field) => ({
    name: field.name,
    schema: field.schema,
    value: struct.get(field),
  }));
}

/** Map entries; a typed map's value schema applies to every entry, so its logical types still render. */
function mapFields(map: ConnectMap, valueSchema: Schema | null): InputField[] {
  return mapEntries(map).map(([key, value]) => {
    if (typeof key !== "string") {
      throw new MappingError(
        `the record value is a Map with a ${describeValueType(key)} key; field names must be strings`,
      );
    }
    return { name: key, schema: valueSchema, value };
  });
}

function jsonObjectFields(text: string): InputField[] {
  let node: JsonNode;
  try {
    node = parseJson(text);
  } catch (error) {
    throw new MappingError(`the record value is a String that is not JSON: ${(error as Error).message}`);
  }
  if (node.kind !== "object") {
    throw new MappingError(`the record value is a String holding ${describeNode(node)}, not a JSON object`);
  }
  return [...node.fields].map(([name, member]) => ({ name, schema: null, value: jsonValue(member) }));
}

/** A JSON node as a schemaless Connect value; numbers become exact decimals so no digit is lost on the way. */
function jsonValue(node: JsonNode): unknown {
  switch (node.kind) {
    case "missing":
    case "null":
      return null;
    case "boolean":
    case "string":
      return node.value;
    case "number":
      return BigDecimal.parse(node.text);
    case "array":
      return node.items.map(jsonValue);
    case "object":
      return new Map([...node.fields].map(([name, member]) => [name, jsonValue(member)]));
  }
}

function describeNode(node: JsonNode): string {
  switch (node.kind) {
    case "missing":
      return "nothing";
    case "array":
      return "a JSON array";
    default:
      return `a JSON ${node.kind}`;
  }
}
