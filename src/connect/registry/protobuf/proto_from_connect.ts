/**
 * Connect schema → .proto text, as Confluent's `ProtobufData.fromConnectSchema` builds it (the mapping:
 * docs/schema-registry.md, "Schema mapping"). The root STRUCT is a proto3 message named after the schema's last
 * name part, in the package of the part before it; a nested message named like its field gets the suffix
 * `Message`. Field numbers are the positions from 1, unless the field has an `io.confluent.connect.protobuf.Tag`.
 * Optional primitives are plain fields unless `wrapper.for.nullables` (`google.protobuf.*Value`) or
 * `optional.for.nullables` (the proto3 `optional` label) keep null.
 */
import { DataException } from "../../errors.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import type { Schema } from "../../schema.ts";
import { WELL_KNOWN, WELL_KNOWN_IMPORTS, WRAPPERS } from "./proto_schema.ts";
import { checkName, splitName } from "../schema_names.ts";

export const PROTOBUF_NAMESPACE = "io.confluent.connect.protobuf";
export const TAG_PARAM = `${PROTOBUF_NAMESPACE}.Tag`;
const DEFAULT_NAME = "ConnectDefault";

export interface NullableStyle {
  /** `wrapper.for.nullables`: optional primitives as `google.protobuf.*Value`. */
  readonly wrappers: boolean;
  /** `optional.for.nullables`: optional primitives with the proto3 `optional` label. */
  readonly optionalLabel: boolean;
}

const SCALAR_OF: Partial<Record<Schema["type"], string>> = {
  INT8: "int32",
  INT16: "int32",
  INT32: "int32",
  INT64: "int64",
  FLOAT32: "float",
  FLOAT64: "double",
  BOOLEAN: "bool",
  STRING: "string",
  BYTES: "bytes",
};

const LOGICAL_MESSAGES: Record<string, string> = {
  [ConnectDecimal.LOGICAL_NAME]: WELL_KNOWN.decimal,
  [ConnectDate.LOGICAL_NAME]: WELL_KNOWN.date,
  [ConnectTime.LOGICAL_NAME]: WELL_KNOWN.timeOfDay,
  [ConnectTimestamp.LOGICAL_NAME]: WELL_KNOWN.timestamp,
};

function fieldMeta(params: ReadonlyArray<[string, string]>): string {
  if (params.length === 0) return "";
  const entries = params.map(([k, v]) => `{ key: ${JSON.stringify(k)}, value: ${JSON.stringify(v)} }`).join(
    ", ",
  );
  return ` [(confluent.field_meta) = { params: [${entries}] }]`;
}

class Generator {
  readonly imports = new Set<string>();
  #unnamed: number;

  /** `unnamedBefore`: default names already used (the root's, when it is unnamed). */
  constructor(private readonly style: NullableStyle, unnamedBefore: number) {
    this.#unnamed = unnamedBefore;
  }

  #unqualified(name: string | null): string {
    return name === null || name === "" ? `${DEFAULT_NAME}${++this.#unnamed}` : splitName(name)[1];
  }

  message(name: string, schema: Schema, indent: string): string {
    const lines: string[] = [`${indent}message ${checkName(name, "Protobuf", "message")} {`];
    const nested: string[] = [];
    let next = 1;
    for (const field of schema.fields()) {
      const tagText = field.schema.parameters?.get(TAG_PARAM);
      const tag = tagText !== undefined ? Number(tagText) : next++;
      lines.push(`${indent}  ${this.#field(field.name, field.schema, tag, indent + "  ", nested)}`);
    }
    return [...lines, ...nested, `${indent}}`].join("\n");
  }

  #field(name: string, schema: Schema, tag: number, indent: string, nested: string[]): string {
    checkName(name, "Protobuf", "field");
    let label = "";
    let element = schema;
    if (schema.type === "ARRAY") {
      label = "repeated ";
      element = schema.valueSchema();
      if (element.type === "ARRAY") throw new DataException("Array cannot be nested");
    }
    const params: Array<[string, string]> = [];
    if (element.type === "MAP") {
      if (label !== "") throw new DataException("Arrays of maps are not supported");
      const key = this.#scalarType(element.keySchema(), params);
      const value = this.#typeOf(element.valueSchema(), name, indent, nested, []);
      return `map<${key}, ${value}> ${name} = ${tag};`;
    }
    const type = this.#typeOf(element, name, indent, nested, params);
    if (
      label === "" && element.isOptional && this.style.optionalLabel && !this.style.wrappers &&
      SCALAR_OF[element.type] !== undefined && !(element.name !== null && element.name in LOGICAL_MESSAGES)
    ) {
      label = "optional ";
    }
    return `${label}${type} ${name} = ${tag}${fieldMeta(params)};`;
  }

  #scalarType(schema: Schema, params: Array<[string, string]>): string {
    const scalar = SCALAR_OF[schema.type];
    if (scalar === undefined) throw new DataException(`Unsupported map key type ${schema.type}`);
    if (schema.type === "INT8" || schema.type === "INT16") {
      params.push(["connect.type", schema.type.toLowerCase()]);
    }
    return scalar;
  }

  #typeOf(
    schema: Schema,
    fieldName: string,
    indent: string,
    nested: string[],
    params: Array<[string, string]>,
  ): string {
    if (schema.name !== null && schema.name in LOGICAL_MESSAGES) {
      const type = LOGICAL_MESSAGES[schema.name];
      this.imports.add(WELL_KNOWN_IMPORTS[type]);
      if (schema.name === ConnectDecimal.LOGICAL_NAME) {
        const precision = schema.parameters?.get("connect.decimal.precision");
        if (precision !== undefined) params.push(["precision", precision]);
        const scale = schema.parameters?.get("scale");
        if (scale !== undefined) params.push(["scale", scale]);
      }
      return type;
    }
    if (schema.type === "STRUCT") {
      let name = this.#unqualified(schema.name);
      if (name === fieldName) name += "Message";
      // Two fields of one struct type (an envelope's before/after) share one nested message: .proto allows a name once.
      if (!nested.some((m) => m.startsWith(`${indent}message ${name} {`))) {
        nested.push(this.message(name, schema, indent));
      }
      return name;
    }
    if (schema.type === "MAP" || schema.type === "ARRAY") {
      throw new DataException(`Nested ${schema.type} is not supported`);
    }
    const scalar = this.#scalarType(schema, params);
    if (!this.style.wrappers || !schema.isOptional) return scalar;
    // The google.protobuf.*Value wrapping this scalar (Int32Value for int32, ...).
    const wrapper = Object.keys(WRAPPERS).find((name) => WRAPPERS[name] === scalar)!;
    this.imports.add(WELL_KNOWN_IMPORTS[wrapper]);
    return wrapper;
  }
}

/** The .proto text of a STRUCT schema. */
export function protoText(schema: Schema, style: NullableStyle): string {
  if (schema.type !== "STRUCT") {
    throw new DataException(`Unsupported root schema of type ${schema.type}: Protobuf needs a STRUCT`);
  }
  const generator = new Generator(style, schema.name === null ? 1 : 0);
  const [pkg, name] = schema.name === null ? [null, `${DEFAULT_NAME}1`] : splitName(schema.name);
  const body = generator.message(name, schema, "");
  if (body.includes("(confluent.field_meta)")) generator.imports.add("confluent/meta.proto");
  const header = [`syntax = "proto3";`];
  if (pkg !== null) header.push(`package ${pkg};`);
  const imports = [...generator.imports].sort().map((i) => `import "${i}";`);
  return [header.join("\n"), ...(imports.length > 0 ? [imports.join("\n")] : []), body].join("\n\n") + "\n";
}
