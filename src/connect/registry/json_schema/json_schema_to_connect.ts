/**
 * JSON Schema document → Connect schema, as Confluent's `JsonSchemaData.toConnectSchema`: `connect.type`
 * picks the Connect type of numbers, bytes and maps (plain `integer` is INT64, plain `number` FLOAT64);
 * `title` is the name (and tells the logical types apart); `description`, `connect.version` (else the registry
 * version, top level only), `connect.parameters` and `default` restore the rest; `oneOf` with `{"type":"null"}`
 * makes the other branch optional; struct fields follow `connect.index`. `$ref` to `#/definitions/...` is
 * followed. Other combinations (`allOf`, `anyOf`, general `oneOf`) are refused with a `DataException`.
 */
import { DataException } from "../../errors.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import type { Schema, SchemaType } from "../../schema.ts";
import { SchemaBuilder } from "../../schema_builder.ts";
import { parseJson } from "../../converters/json/json_parser.ts";
import { JSON_SCHEMA_DEFAULTS } from "./json_schema_values.ts";

type JsonObject = Record<string, unknown>;

/** Confluent's `connect.type` values of numbers, each naming its Connect type. */
const NUMBER_TYPES = new Set(["int8", "int16", "int32", "int64", "float32", "float64"]);

class Converter {
  constructor(private readonly root: JsonObject) {}

  #resolve(node: JsonObject): JsonObject {
    const ref = node.$ref;
    if (typeof ref !== "string") return node;
    if (!ref.startsWith("#/")) throw new DataException(`Unsupported $ref ${ref}`);
    let target: unknown = this.root;
    for (const part of ref.slice(2).split("/")) target = (target as JsonObject)?.[part];
    if (typeof target !== "object" || target === null) throw new DataException(`Unresolved $ref ${ref}`);
    return target as JsonObject;
  }

  convert(raw: unknown, version: number | null, forceOptional = false): Schema {
    if (raw === true || raw === undefined) {
      throw new DataException("Schemaless JSON Schema properties are not supported");
    }
    const node = this.#resolve(raw as JsonObject);
    const oneOf = node.oneOf as unknown[] | undefined;
    if (Array.isArray(oneOf)) {
      const nonNull = oneOf.filter((s) => (s as JsonObject).type !== "null");
      if (oneOf.length === 2 && nonNull.length === 1) return this.convert(nonNull[0], version, true);
      throw new DataException("Only oneOf with a null branch and one other branch is supported");
    }
    if (node.allOf !== undefined || node.anyOf !== undefined) {
      throw new DataException("allOf and anyOf are not supported");
    }
    const builder = this.#builder(node);
    if (typeof node.description === "string") builder.doc(node.description);
    const connectVersion = node["connect.version"];
    if (typeof connectVersion === "number") builder.version(connectVersion);
    else if (version !== null) builder.version(version);
    const parameters = node["connect.parameters"];
    if (typeof parameters === "object" && parameters !== null) {
      for (const [k, v] of Object.entries(parameters)) builder.parameter(k, String(v));
    }
    if (forceOptional) builder.optional();
    if (node.default !== undefined && node.default !== null) {
      builder.defaultValue(
        JSON_SCHEMA_DEFAULTS.toConnect(builder.build(), parseJson(JSON.stringify(node.default))),
      );
    }
    return builder.build();
  }

  #builder(node: JsonObject): SchemaBuilder {
    const connectType = node["connect.type"];
    const title = typeof node.title === "string" ? node.title : null;
    const type = Array.isArray(node.type) ? node.type.find((t) => t !== "null") : node.type;
    switch (type) {
      case "boolean":
        return SchemaBuilder.bool();
      case "integer":
      case "number": {
        if (title === ConnectDecimal.LOGICAL_NAME || connectType === "bytes") {
          const scale = Number((node["connect.parameters"] as JsonObject | undefined)?.scale ?? 0);
          return ConnectDecimal.builder(scale);
        }
        const temporal = [ConnectTimestamp, ConnectDate, ConnectTime].find((t) => t.LOGICAL_NAME === title);
        if (temporal !== undefined) return temporal.builder();
        const connectNumber = String(connectType);
        const builder = NUMBER_TYPES.has(connectNumber)
          ? SchemaBuilder.type(connectNumber.toUpperCase() as SchemaType)
          : SchemaBuilder.type(type === "integer" ? "INT64" : "FLOAT64");
        return title !== null ? builder.name(title) : builder;
      }
      case "string": {
        const builder = connectType === "bytes" ? SchemaBuilder.bytes() : SchemaBuilder.string();
        return title !== null ? builder.name(title) : builder;
      }
      case "array": {
        if (connectType === "map") {
          const entry = this.#resolve(node.items as JsonObject);
          const props = entry.properties as JsonObject;
          return SchemaBuilder.map(this.convert(props.key, null), this.convert(props.value, null));
        }
        const builder = SchemaBuilder.array(this.convert(node.items, null));
        return title !== null ? builder.name(title) : builder;
      }
      case "object": {
        if (connectType === "map") {
          return SchemaBuilder.map(
            SchemaBuilder.string().build(),
            this.convert(node.additionalProperties, null),
          );
        }
        const builder = SchemaBuilder.struct();
        if (title !== null) builder.name(title);
        const properties = Object.entries((node.properties as JsonObject | undefined) ?? {});
        const indexOf = (p: unknown) => {
          const i = (p as JsonObject)["connect.index"];
          return typeof i === "number" ? i : Number.MAX_SAFE_INTEGER;
        };
        properties.sort(([, a], [, b]) => indexOf(a) - indexOf(b));
        for (const [name, property] of properties) builder.field(name, this.convert(property, null));
        return builder;
      }
      default:
        throw new DataException(`Unsupported JSON Schema type ${JSON.stringify(type)}`);
    }
  }
}

/** The Connect schema of a JSON Schema document; `version` applies when the document has no connect.version. */
export function jsonSchemaToConnect(document: unknown, version: number | null): Schema {
  if (typeof document !== "object" || document === null) throw new DataException("Not a JSON Schema object");
  return new Converter(document as JsonObject).convert(document, version);
}
