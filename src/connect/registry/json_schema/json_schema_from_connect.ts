/**
 * Connect schema → JSON Schema document, as Confluent's `JsonSchemaData.fromConnectSchema` builds it (the
 * mapping: docs/schema-registry.md, "Schema mapping"): names are `title` (which tells the logical types apart),
 * docs `description`; struct properties carry `connect.index` (moved to the `oneOf` of an optional one); maps
 * without required string keys are arrays of `{key, value}` objects.
 */
import { DECIMAL_LOGICAL_NAME } from "../../logical_names.ts";
import type { Schema } from "../../schema.ts";
import { JSON_SCHEMA_DEFAULTS } from "./json_schema_values.ts";

export const JSON_NAMESPACE = "io.confluent.connect.json";

type JsonObject = Record<string, unknown>;

/** The JSON type and Confluent's `connect.type` of each Connect type (maps and Decimal are set apart below). */
const JSON_TYPE: Record<Schema["type"], [string, string?]> = {
  INT8: ["integer", "int8"],
  INT16: ["integer", "int16"],
  INT32: ["integer", "int32"],
  INT64: ["integer", "int64"],
  FLOAT32: ["number", "float32"],
  FLOAT64: ["number", "float64"],
  BOOLEAN: ["boolean"],
  STRING: ["string"],
  BYTES: ["string", "bytes"],
  ARRAY: ["array"],
  MAP: ["object", "map"],
  STRUCT: ["object"],
};

function nonOptional(schema: Schema, index: number | null): JsonObject {
  const out: JsonObject = {};
  const props: JsonObject = {};
  if (index !== null) props["connect.index"] = index;
  const [type, connectType] = JSON_TYPE[schema.type];
  const stringKeys = schema.type === "MAP" && schema.keySchema().type === "STRING" &&
    !schema.keySchema().isOptional;
  out.type = type;
  if (schema.type === "BYTES" && schema.name === DECIMAL_LOGICAL_NAME) out.type = "number";
  if (schema.type === "MAP" && !stringKeys) out.type = "array";
  if (connectType !== undefined) props["connect.type"] = connectType;
  if (schema.name !== null) out.title = schema.name;
  if (schema.doc !== null) out.description = schema.doc;
  switch (schema.type) {
    case "ARRAY":
      out.items = jsonSchemaOf(schema.valueSchema(), null);
      break;
    case "MAP":
      if (stringKeys) out.additionalProperties = jsonSchemaOf(schema.valueSchema(), null);
      else {
        out.items = {
          type: "object",
          properties: {
            key: jsonSchemaOf(schema.keySchema(), 0),
            value: jsonSchemaOf(schema.valueSchema(), 1),
          },
        };
      }
      break;
    case "STRUCT":
      out.properties = Object.fromEntries(
        schema.fields().map((f) => [f.name, jsonSchemaOf(f.schema, f.index)]),
      );
      break;
  }
  if (schema.defaultValue !== null) {
    out.default = JSON.parse(JSON_SCHEMA_DEFAULTS.toJson(schema, schema.defaultValue));
  }
  if (schema.version !== null) props["connect.version"] = schema.version;
  const parameters = [...(schema.parameters ?? [])].filter(([k]) => !k.startsWith(JSON_NAMESPACE));
  if (parameters.length > 0) props["connect.parameters"] = Object.fromEntries(parameters);
  return { ...out, ...props };
}

/** The JSON Schema of a Connect schema; `index` is the field position inside a struct. */
export function jsonSchemaOf(schema: Schema, index: number | null): JsonObject {
  if (!schema.isOptional) return nonOptional(schema, index);
  const inner = nonOptional(schema, null);
  return {
    ...(index === null ? {} : { "connect.index": index }),
    oneOf: [{ type: "null" }, inner],
  };
}

/** The registered text: the document without whitespace. */
export function jsonSchemaText(schema: Schema): string {
  return JSON.stringify(jsonSchemaOf(schema, null));
}
