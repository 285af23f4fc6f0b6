/**
 * Connect schemas as JSON, exactly as Kafka's JsonConverter writes them (`asJsonSchema`) and reads them
 * (`asConnectSchema`).
 *
 * Written key order is Kafka's: `type`, then `items` | `keys`,`values` | `fields`, then `optional` (always),
 * `name`, `version`, `doc`, `parameters`, `default` when set; each struct field is its schema with `"field"`
 * appended last. Type names: boolean, int8, int16, int32, int64, float, double, bytes, string, array, map, struct.
 */
import { DataException } from "../../errors.ts";
import type { Schema, SchemaType } from "../../schema.ts";
import { SchemaBuilder } from "../../schema_builder.ts";
import type { JsonDataCodec } from "./json_data.ts";
import type { JsonNode } from "./json_node.ts";
import { jsonString } from "./json_text.ts";
import { LruCache } from "./lru_cache.ts";

const TYPE_NAMES: Record<SchemaType, string> = {
  BOOLEAN: "boolean",
  INT8: "int8",
  INT16: "int16",
  INT32: "int32",
  INT64: "int64",
  FLOAT32: "float",
  FLOAT64: "double",
  BYTES: "bytes",
  STRING: "string",
  ARRAY: "array",
  MAP: "map",
  STRUCT: "struct",
};

const TYPES_BY_NAME = new Map(Object.entries(TYPE_NAMES).map(([type, name]) => [name, type as SchemaType]));

export class JsonSchemaCodec {
  // Written schemas are cached by schema object: sources reuse one schema object for many records.
  readonly #toJsonCache: LruCache<Schema, string>;
  // Read schemas are cached by their exact JSON text, as Kafka caches by JSON node.
  readonly #toConnectCache: LruCache<string, Schema>;

  constructor(readonly data: JsonDataCodec, cacheSize: number) {
    this.#toJsonCache = new LruCache(cacheSize);
    this.#toConnectCache = new LruCache(cacheSize);
  }

  /** Kafka's `asJsonSchema`: the schema's JSON text, or `null` for a null schema. */
  asJsonSchema(schema: Schema | null): string {
    if (schema === null) return "null";
    const cached = this.#toJsonCache.get(schema);
    if (cached !== undefined) return cached;
    const parts = [`"type":"${TYPE_NAMES[schema.type]}"`];
    switch (schema.type) {
      case "ARRAY":
        parts.push(`"items":${this.asJsonSchema(schema.valueSchema())}`);
        break;
      case "MAP":
        parts.push(`"keys":${this.asJsonSchema(schema.keySchema())}`);
        parts.push(`"values":${this.asJsonSchema(schema.valueSchema())}`);
        break;
      case "STRUCT": {
        const fields = schema.fields().map((f) => {
          const fieldSchema = this.asJsonSchema(f.schema);
          return `${fieldSchema.slice(0, -1)},"field":${jsonString(f.name)}}`;
        });
        parts.push(`"fields":[${fields.join(",")}]`);
        break;
      }
    }
    parts.push(`"optional":${schema.isOptional}`);
    if (schema.name !== null) parts.push(`"name":${jsonString(schema.name)}`);
    if (schema.version !== null) parts.push(`"version":${schema.version}`);
    if (schema.doc !== null) parts.push(`"doc":${jsonString(schema.doc)}`);
    if (schema.parameters !== null) {
      const params = [...schema.parameters].map(([k, v]) => `${jsonString(k)}:${jsonString(v)}`);
      parts.push(`"parameters":{${params.join(",")}}`);
    }
    if (schema.defaultValue !== null) {
      parts.push(`"default":${this.data.toJson(schema, schema.defaultValue)}`);
    }
    const json = `{${parts.join(",")}}`;
    this.#toJsonCache.set(schema, json);
    return json;
  }

  /** Kafka's `asConnectSchema`: the schema described by a JSON node (`null` for JSON null). */
  asConnectSchema(node: JsonNode): Schema | null {
    if (node.kind === "null") return null;
    const cacheKey = node.kind === "object" ? node.source : null;
    if (cacheKey !== null) {
      const cached = this.#toConnectCache.get(cacheKey);
      if (cached !== undefined) return cached;
    }
    const fields = node.kind === "object" ? node.fields : new Map<string, JsonNode>();
    const typeNode = fields.get("type");
    if (typeNode === undefined || typeNode.kind !== "string") {
      throw new DataException("Schema must contain 'type' field");
    }
    const builder = this.#builderFor(typeNode.value, fields);

    const optional = fields.get("optional");
    if (optional?.kind === "boolean" && optional.value) builder.optional();
    else builder.required();
    const name = fields.get("name");
    if (name?.kind === "string") builder.name(name.value);
    const version = fields.get("version");
    if (version?.kind === "number" && version.integral) {
      builder.version(Number(BigInt.asIntN(32, BigInt(version.text))));
    }
    const doc = fields.get("doc");
    if (doc?.kind === "string") builder.doc(doc.value);
    const parameters = fields.get("parameters");
    if (parameters?.kind === "object") {
      for (const [key, value] of parameters.fields) {
        if (value.kind !== "string") throw new DataException("Schema parameters must have string values.");
        builder.parameter(key, value.value);
      }
    }
    const defaultNode = fields.get("default");
    if (defaultNode !== undefined) builder.defaultValue(this.data.toConnect(builder.build(), defaultNode));

    const schema = builder.build();
    if (cacheKey !== null) this.#toConnectCache.set(cacheKey, schema);
    return schema;
  }

  #builderFor(typeName: string, fields: ReadonlyMap<string, JsonNode>): SchemaBuilder {
    const type = TYPES_BY_NAME.get(typeName);
    switch (type) {
      case undefined:
        throw new DataException(`Unknown schema type: ${typeName}`);
      case "ARRAY": {
        const items = fields.get("items");
        if (items === undefined || items.kind === "null") {
          throw new DataException("Array schema did not specify the element type");
        }
        return SchemaBuilder.array(this.#requireSchema(items));
      }
      case "MAP": {
        const keys = fields.get("keys");
        if (keys === undefined) throw new DataException("Map schema did not specify the key type");
        const values = fields.get("values");
        if (values === undefined) throw new DataException("Map schema did not specify the value type");
        return SchemaBuilder.map(this.#requireSchema(keys), this.#requireSchema(values));
      }
      case "STRUCT": {
        const builder = SchemaBuilder.struct();
        const fieldList = fields.get("fields");
        if (fieldList === undefined || fieldList.kind !== "array") {
          throw new DataException(`Struct schema's "fields" argument is not an array.`);
        }
        for (const field of fieldList.items) {
          const fieldName = field.kind === "object" ? field.fields.get("field") : undefined;
          if (fieldName === undefined || fieldName.kind !== "string") {
            throw new DataException("Struct schema's field name not specified properly");
          }
          builder.field(fieldName.value, this.#requireSchema(field));
        }
        return builder;
      }
      default:
        return SchemaBuilder.type(type);
    }
  }

  /** Element, key, value and field schemas must be real schemas (Kafka fails on a null there too). */
  #requireSchema(node: JsonNode): Schema {
    const schema = this.asConnectSchema(node);
    if (schema === null) throw new DataException("Schema must contain 'type' field");
    return schema;
  }
}
