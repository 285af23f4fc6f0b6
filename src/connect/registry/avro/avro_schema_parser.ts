/**
 * Parses Avro schema JSON (as stored in the registry) into `AvroType`, resolving named type references with the
 * specification's namespace rules: a dotted name is full; otherwise the type's `namespace`, else the enclosing
 * namespace, qualifies it.
 */
import { DataException } from "../../errors.ts";
import type { AvroField, AvroPrimitive, AvroType } from "./avro_types.ts";

const PRIMITIVES = new Set<string>(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED: Record<string, ReadonlySet<string>> = {
  record: new Set(["type", "name", "namespace", "doc", "fields", "aliases"]),
  enum: new Set(["type", "name", "namespace", "doc", "symbols", "aliases", "default"]),
  fixed: new Set(["type", "name", "namespace", "size", "aliases"]),
  array: new Set(["type", "items"]),
  map: new Set(["type", "values"]),
  primitive: new Set(["type"]),
};

/** Checks an Avro name (a record, field or enum symbol name); throws `DataException` otherwise. */
export function checkAvroName(name: string, what: string): void {
  if (!NAME.test(name)) throw new DataException(`Illegal Avro ${what} name: ${JSON.stringify(name)}`);
}

function props(json: Record<string, unknown>, reserved: ReadonlySet<string>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(json)) if (!reserved.has(k)) out.set(k, v);
  return out;
}

class Parser {
  readonly named = new Map<string, AvroType>();

  fullName(name: string, namespace: string | null): string {
    if (name.includes(".")) return name;
    return namespace ? `${namespace}.${name}` : name;
  }

  define(fullName: string, type: AvroType): void {
    if (this.named.has(fullName)) throw new DataException(`Can't redefine: ${fullName}`);
    for (const part of fullName.split(".")) checkAvroName(part, "type");
    this.named.set(fullName, type);
  }

  parse(json: unknown, namespace: string | null): AvroType {
    if (typeof json === "string") {
      if (PRIMITIVES.has(json)) return { kind: "primitive", type: json as AvroPrimitive, props: new Map() };
      const found = this.named.get(this.fullName(json, namespace)) ?? this.named.get(json);
      if (found === undefined) throw new DataException(`Undefined Avro name: ${json}`);
      return found;
    }
    if (Array.isArray(json)) return { kind: "union", branches: json.map((b) => this.parse(b, namespace)) };
    if (json === null || typeof json !== "object") {
      throw new DataException(`Not an Avro schema: ${JSON.stringify(json)}`);
    }
    const obj = json as Record<string, unknown>;
    const type = obj.type;
    if (typeof type === "string" && PRIMITIVES.has(type)) {
      return { kind: "primitive", type: type as AvroPrimitive, props: props(obj, RESERVED.primitive) };
    }
    switch (type) {
      case "record":
      case "error":
        return this.#record(obj, namespace);
      case "enum": {
        const fullName = this.fullName(String(obj.name), (obj.namespace as string | undefined) ?? namespace);
        const symbols = (obj.symbols as unknown[] ?? []).map(String);
        const result: AvroType = { kind: "enum", fullName, symbols, props: props(obj, RESERVED.enum) };
        this.define(fullName, result);
        return result;
      }
      case "fixed": {
        const fullName = this.fullName(String(obj.name), (obj.namespace as string | undefined) ?? namespace);
        const result: AvroType = {
          kind: "fixed",
          fullName,
          size: Number(obj.size),
          props: props(obj, RESERVED.fixed),
        };
        this.define(fullName, result);
        return result;
      }
      case "array":
        return { kind: "array", items: this.parse(obj.items, namespace), props: props(obj, RESERVED.array) };
      case "map":
        return { kind: "map", values: this.parse(obj.values, namespace), props: props(obj, RESERVED.map) };
      default:
        // {"type": "some.Named"} or {"type": {...}}: the attribute itself is the schema.
        if (typeof type === "string" || (typeof type === "object" && type !== null)) {
          return this.parse(type, namespace);
        }
        throw new DataException(`Not an Avro schema: ${JSON.stringify(json)}`);
    }
  }

  #record(obj: Record<string, unknown>, namespace: string | null): AvroType {
    const fullName = this.fullName(String(obj.name), (obj.namespace as string | undefined) ?? namespace);
    const record: AvroType & { kind: "record" } = {
      kind: "record",
      fullName,
      doc: typeof obj.doc === "string" ? obj.doc : null,
      fields: [],
      props: props(obj, RESERVED.record),
    };
    this.define(fullName, record);
    const inner = fullName.includes(".") ? fullName.slice(0, fullName.lastIndexOf(".")) : null;
    const seen = new Set<string>();
    for (const f of (obj.fields as unknown[] | undefined) ?? []) {
      const field = f as Record<string, unknown>;
      const name = String(field.name);
      checkAvroName(name, "field");
      if (seen.has(name)) throw new DataException(`Duplicate field ${name} in record ${fullName}`);
      seen.add(name);
      const parsed: AvroField = {
        name,
        type: this.parse(field.type, inner),
        doc: typeof field.doc === "string" ? field.doc : null,
        hasDefault: Object.hasOwn(field, "default"),
        default: field.default,
      };
      record.fields.push(parsed);
    }
    return record;
  }
}

/** Parses schema JSON text; throws `DataException` for invalid schemas. */
export function parseAvroSchema(text: string): AvroType {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DataException(`Invalid Avro schema JSON: ${(error as Error).message}`);
  }
  return new Parser().parse(json, null);
}
