/**
 * Connect value → Avro binary encoding (Avro specification, "Binary Encoding"): int and long as zig-zag
 * varints, float/double little-endian, bytes and strings length-prefixed, arrays and maps as one counted block
 * and a zero, unions as the branch index then the value, records as their fields in order.
 *
 * The Avro schema drives the encoding; the Connect schema next to it supplies logical conversions. Record
 * fields are matched by name, so a value can be written with another (e.g. the subject's latest) schema: a
 * field the value lacks is written as its default.
 */
import { DataException } from "../../errors.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { isConnectMap, mapEntries } from "../../values.ts";
import { BigDecimal, bigintToTwosComplement } from "../../big_decimal.ts";
import { ByteWriter } from "../bytes.ts";
import { toUnderlying } from "./avro_defaults.ts";
import { AVRO_UNION_NAME, unionMemberFieldName } from "./avro_schema_to_connect.ts";
import { type AvroField, avroProp, type AvroType } from "./avro_types.ts";
import { MILLIS_PER_DAY } from "../../logical.ts";

const encoder = new TextEncoder();

function isNull(type: AvroType): boolean {
  return type.kind === "primitive" && type.type === "null";
}

/** Whether a non-null value can go to this union branch (first match wins, as in Avro's GenericData). */
function accepts(type: AvroType, value: unknown): boolean {
  switch (type.kind) {
    case "primitive":
      switch (type.type) {
        case "null":
          return false;
        case "boolean":
          return typeof value === "boolean";
        case "int":
          return (typeof value === "number" && Number.isInteger(value)) ||
            (value instanceof Date && avroProp(type, "logicalType") !== undefined);
        case "long":
          return typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value)) ||
            (value instanceof Date && avroProp(type, "logicalType") === "timestamp-millis");
        case "float":
        case "double":
          return typeof value === "number";
        case "bytes":
          return value instanceof Uint8Array || value instanceof BigDecimal;
        case "string":
          return typeof value === "string";
      }
      return false;
    case "record":
      return value instanceof Struct;
    case "enum":
      return typeof value === "string";
    case "fixed":
      return value instanceof Uint8Array;
    case "array":
      return Array.isArray(value) || (isConnectMap(value) && type.items.kind === "record");
    case "map":
      return isConnectMap(value);
    case "union":
      return false;
  }
}

/** Logical value without a Connect schema (a default written for a missing field): use the Avro logical type. */
function underlyingByAvro(type: AvroType, value: unknown): unknown {
  const logical = avroProp(type, "logicalType");
  if (value instanceof Date) {
    if (logical === "date") return Math.floor(value.getTime() / MILLIS_PER_DAY);
    if (logical === "time-millis") return value.getTime();
    return value.getTime();
  }
  if (value instanceof BigDecimal) return bigintToTwosComplement(value.unscaled);
  return value;
}

export class AvroBinaryWriter {
  readonly #out = new ByteWriter();

  write(type: AvroType, schema: Schema | null, value: unknown): this {
    if (type.kind === "union") return this.#union(type, schema, value);
    if (value === null || value === undefined) {
      if (isNull(type)) return this;
      throw new DataException("Found null value for non-optional schema");
    }
    const v = schema !== null ? toUnderlying(schema, value) : underlyingByAvro(type, value);
    const out = this.#out;
    switch (type.kind) {
      case "primitive":
        switch (type.type) {
          case "null":
            return this;
          case "boolean":
            out.byte(v === true ? 1 : 0);
            return this;
          case "int":
          case "long":
            if (typeof v !== "number" && typeof v !== "bigint") {
              throw new DataException(`Invalid type for ${type.type}: ${typeof v}`);
            }
            out.zigzag(v);
            return this;
          case "float":
            out.float32(Number(v));
            return this;
          case "double":
            out.float64(Number(v));
            return this;
          case "bytes": {
            const bytes = v as Uint8Array;
            out.zigzag(bytes.length).bytes(bytes);
            return this;
          }
          case "string": {
            const bytes = encoder.encode(String(v));
            out.zigzag(bytes.length).bytes(bytes);
            return this;
          }
        }
        return this;
      case "enum": {
        const index = type.symbols.indexOf(String(v));
        if (index < 0) throw new DataException(`Not a symbol of enum ${type.fullName}: ${String(v)}`);
        out.zigzag(index);
        return this;
      }
      case "fixed": {
        const bytes = v as Uint8Array;
        if (bytes.length !== type.size) {
          throw new DataException(`Fixed ${type.fullName} needs ${type.size} bytes`);
        }
        out.bytes(bytes);
        return this;
      }
      case "record":
        return this.#record(type, v);
      case "array": {
        if (!Array.isArray(v)) return this.#mapEntries(type, schema, v);
        const items = schema?.type === "ARRAY" ? schema.valueSchema() : null;
        if (v.length > 0) out.zigzag(v.length);
        for (const item of v) this.write(type.items, items, item);
        out.byte(0);
        return this;
      }
      case "map": {
        const entries = mapEntries(v as Map<unknown, unknown>);
        const values = schema?.type === "MAP" ? schema.valueSchema() : null;
        if (entries.length > 0) out.zigzag(entries.length);
        for (const [k, x] of entries) {
          const key = encoder.encode(String(k));
          out.zigzag(key.length).bytes(key);
          this.write(type.values, values, x);
        }
        out.byte(0);
        return this;
      }
    }
  }

  #union(type: AvroType & { kind: "union" }, schema: Schema | null, value: unknown): this {
    if (value === null || value === undefined) {
      const index = type.branches.findIndex(isNull);
      if (index < 0) throw new DataException("Found null value for non-optional schema");
      this.#out.zigzag(index);
      return this;
    }
    if (value instanceof Struct && value.schema.name === AVRO_UNION_NAME) {
      for (const field of value.schema.fields()) {
        const member = value.get(field);
        if (member === null) continue;
        const index = type.branches.findIndex((b) => unionMemberFieldName(b) === field.name);
        if (index < 0) throw new DataException(`No union branch for ${field.name}`);
        this.#out.zigzag(index);
        return this.write(type.branches[index], field.schema, member);
      }
      return this.#union(type, schema, null);
    }
    const index = type.branches.findIndex((b) => accepts(b, value));
    if (index < 0) throw new DataException(`No branch of the union accepts the value (${typeof value})`);
    this.#out.zigzag(index);
    return this.write(type.branches[index], schema, value);
  }

  #record(type: AvroType & { kind: "record" }, value: unknown): this {
    if (!(value instanceof Struct)) throw new DataException(`Expected a Struct for record ${type.fullName}`);
    for (const field of type.fields) {
      const connectField = value.schema.field(field.name);
      if (connectField !== null) {
        this.write(field.type, connectField.schema, value.get(connectField));
      } else {
        this.#default(field);
      }
    }
    return this;
  }

  /** A field the value does not have: its declared default, else null when the field allows it. */
  #default(field: AvroField): void {
    if (field.hasDefault) {
      const type = field.type.kind === "union" ? field.type.branches[0] : field.type;
      if (field.type.kind === "union") this.#out.zigzag(0);
      this.write(type, null, jsonDefault(type, field.default));
      return;
    }
    if (field.type.kind === "union" && field.type.branches.some(isNull)) {
      this.write(field.type, null, null);
      return;
    }
    throw new DataException(`The value has no field ${field.name} and the schema gives it no default`);
  }

  #mapEntries(type: AvroType & { kind: "array" }, schema: Schema | null, value: unknown): this {
    if (!isConnectMap(value) || type.items.kind !== "record") throw new DataException("Expected an array");
    const entries = mapEntries(value);
    const [keyField, valueField] = type.items.fields;
    const keySchema = schema?.type === "MAP" ? schema.keySchema() : null;
    const valueSchema = schema?.type === "MAP" ? schema.valueSchema() : null;
    if (entries.length > 0) this.#out.zigzag(entries.length);
    for (const [k, v] of entries) {
      this.write(keyField.type, keySchema, k);
      this.write(valueField.type, valueSchema, v);
    }
    this.#out.byte(0);
    return this;
  }

  toBytes(): Uint8Array {
    return this.#out.toBytes();
  }
}

/** An Avro JSON default as a value the writer accepts. */
function jsonDefault(type: AvroType, json: unknown): unknown {
  if (json === null) return null;
  if (type.kind === "primitive" && (type.type === "bytes")) {
    return Uint8Array.from(String(json), (c) => c.charCodeAt(0) & 0xff);
  }
  if (type.kind === "record") throw new DataException(`Record defaults are not supported (${type.fullName})`);
  return json;
}
