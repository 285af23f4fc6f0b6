/**
 * Connect values ↔ the values avsc encodes (Avro specification, "Binary Encoding"). The Avro schema drives the
 * shape; the Connect schema next to it supplies logical conversions. Record fields are matched by name, so a
 * value can be written with another (e.g. the subject's latest) schema: a field the value lacks takes its
 * default. A union branch is the first that accepts the value, as in Avro's GenericData.
 */
import { Buffer } from "node:buffer";
import { DataException } from "../../errors.ts";
import { logicalToUnderlying, underlyingToLogical } from "../../logical.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { isConnectMap, mapEntries } from "../../values.ts";
import { avroAttributes, type AvroField, avroKind, type AvroType } from "./avro_schema.ts";
import { AVRO_NAMESPACE } from "./avro_schema_from_connect.ts";
import { splitName } from "../schema_names.ts";

export const AVRO_UNION_NAME = `${AVRO_NAMESPACE}.Union`;

/** The Connect field name of a union branch (Confluent's `unionMemberFieldName`). */
export function unionMemberFieldName(type: AvroType): string {
  const kind = avroKind(type);
  return kind === "record" || kind === "enum" ? splitName(type.name!)[1] : type.branchName!;
}

const isNullType = (type: AvroType) => type.typeName === "null";

const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A Connect value → the avsc value of `type`. */
export function toAvroValue(type: AvroType, schema: Schema, value: unknown): unknown {
  const kind = avroKind(type);
  if (value === null || value === undefined) {
    if (isNullType(type) || (kind === "union" && type.types.some(isNullType))) return null;
    throw new DataException("Found null value for non-optional schema");
  }
  if (kind === "union") return unionValue(type, schema, value);
  const v: any = logicalToUnderlying(schema, value);
  switch (kind) {
    case "null":
      return null;
    case "bytes":
    case "fixed":
      return buffer(v);
    case "record":
      return recordValue(type, v);
    case "array": {
      if (!Array.isArray(v)) return mapEntryValues(type, schema, v);
      return v.map((item) => toAvroValue(type.itemsType, schema.valueSchema(), item));
    }
    case "map": {
      return Object.fromEntries(
        mapEntries(v).map(([k, x]) => [String(k), toAvroValue(type.valuesType, schema.valueSchema(), x)]),
      );
    }
  }
  return v; // a primitive or enum symbol: avsc checks it when writing
}

function unionValue(type: AvroType, schema: Schema, value: unknown): unknown {
  const branches: AvroType[] = type.types;
  if (value instanceof Struct && value.schema.name === AVRO_UNION_NAME) {
    for (const field of value.schema.fields()) {
      const member = value.get(field);
      if (member === null) continue;
      const branch = branches.find((b) => unionMemberFieldName(b) === field.name);
      if (branch === undefined) throw new DataException(`No union branch for ${field.name}`);
      return { [branch.branchName!]: toAvroValue(branch, field.schema, member) };
    }
    return toAvroValue(type, schema, null);
  }
  // One branch takes any value; among several, the first that avsc finds valid (as Avro's GenericData).
  const nonNull = branches.length - (branches.some(isNullType) ? 1 : 0);
  const branch = branches.find((b) => !isNullType(b) && (nonNull === 1 || takes(b, schema, value)));
  if (branch === undefined) {
    throw new DataException(`No branch of the union accepts the value (${typeof value})`);
  }
  return { [branch.branchName!]: toAvroValue(branch, schema, value) }; // wrapped: {branchName: value}
}

function takes(branch: AvroType, schema: Schema, value: unknown): boolean {
  try {
    return branch.isValid(toAvroValue(branch, schema, value));
  } catch {
    return false;
  }
}

function recordValue(type: AvroType, value: unknown): Record<string, unknown> {
  if (!(value instanceof Struct)) throw new DataException(`Expected a Struct for record ${type.name}`);
  const out: Record<string, unknown> = {};
  const rawFields = avroAttributes(type).fields ?? [];
  type.fields.forEach((field: AvroField, i: number) => {
    const connectField = value.schema.field(field.name);
    if (connectField !== null) {
      out[field.name] = toAvroValue(field.type, connectField.schema, value.get(connectField));
    } else if (!Object.hasOwn(rawFields[i] ?? {}, "default")) {
      // A field the value does not have and without a default: null when the field allows it.
      if (avroKind(field.type) !== "union" || !field.type.types.some(isNullType)) {
        throw new DataException(`The value has no field ${field.name} and the schema gives it no default`);
      }
      out[field.name] = null;
    }
  });
  return out;
}

function mapEntryValues(type: AvroType, schema: Schema, value: unknown): unknown[] {
  if (!isConnectMap(value) || avroKind(type.itemsType) !== "record") {
    throw new DataException("Expected an array");
  }
  const [keyField, valueField] = type.itemsType.fields;
  return mapEntries(value).map(([k, v]) => ({
    [keyField.name]: toAvroValue(keyField.type, schema.keySchema(), k),
    [valueField.name]: toAvroValue(valueField.type, schema.valueSchema(), v),
  }));
}

/** An avsc value of `type` → the Connect value of `schema` (derived from `type`, avro_schema_to_connect.ts). */
export function fromAvroValue(type: AvroType, schema: Schema, value: any): unknown {
  switch (avroKind(type)) {
    case "union": {
      if (value === null) return null;
      const name = Object.keys(value)[0];
      const branch: AvroType = type.types.find((b: AvroType) => b.branchName === name);
      if (schema.name === AVRO_UNION_NAME && schema.type === "STRUCT") {
        const field = schema.field(unionMemberFieldName(branch))!;
        return new Struct(schema).put(field, fromAvroValue(branch, field.schema, value[name]));
      }
      return fromAvroValue(branch, schema, value[name]);
    }
    case "int":
    case "long":
      return underlyingToLogical(schema, value);
    case "bytes":
    case "fixed":
      return underlyingToLogical(schema, new Uint8Array(value));
    case "record": {
      const struct = new Struct(schema);
      for (const field of type.fields) {
        const connectField = schema.field(field.name)!;
        struct.put(connectField, fromAvroValue(field.type, connectField.schema, value[field.name]));
      }
      return struct;
    }
    case "array": {
      if (schema.type === "MAP") {
        const [keyField, valueField] = type.itemsType.fields;
        return new Map(value.map((entry: any) => [
          fromAvroValue(keyField.type, schema.keySchema(), entry[keyField.name]),
          fromAvroValue(valueField.type, schema.valueSchema(), entry[valueField.name]),
        ]));
      }
      return value.map((item: unknown) => fromAvroValue(type.itemsType, schema.valueSchema(), item));
    }
    case "map":
      return new Map(
        Object.entries(value).map(([k, x]) => [k, fromAvroValue(type.valuesType, schema.valueSchema(), x)]),
      );
    default:
      return value;
  }
}

/** Avro default JSON → the Connect value of `schema` (null stays null), read by avsc as Avro's JSON form. */
export function avroDefaultValue(type: AvroType, schema: Schema, json: unknown): unknown {
  if (json === null || json === undefined) return null;
  try {
    return fromAvroValue(type, schema, type.fromString(JSON.stringify(json)));
  } catch (error) {
    throw new DataException(`Invalid default value ${JSON.stringify(json)}: ${(error as Error).message}`);
  }
}
