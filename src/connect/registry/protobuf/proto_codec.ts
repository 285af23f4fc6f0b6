/**
 * Protobuf binary encoding (protobuf.dev "Encoding") between Connect Structs and messages: each field is a tag
 * (number << 3 | wire type) and a value; varints for integers, bools and enums (negative int32/int64 take ten
 * bytes), zig-zag for sint32/sint64, fixed 4/8 bytes for fixed*, float and double, length-delimited strings,
 * bytes, messages and packed repeated scalars (proto3's default). Fields are written in declaration order.
 *
 * proto3 fields without presence are not written when they hold their default (0, "", false, empty bytes), and
 * read back as that default when absent, so a null in such a field arrives as the default, as with Confluent's
 * converter. Message fields (wrappers, logical types, nested structs) and `optional` fields keep null.
 */
import { BigDecimal, bigintToTwosComplement, twosComplementToBigint } from "../../big_decimal.ts";
import { DataException } from "../../errors.ts";
import { ConnectDate, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { mapEntries } from "../../values.ts";
import { ByteReader, ByteWriter, narrowInt64 } from "../bytes.ts";
import { type ProtoField, type ProtoMessage, SCALAR_TYPES } from "./proto_model.ts";
import {
  DATE_TYPE,
  DECIMAL_TYPE,
  type ProtoTypes,
  TIME_OF_DAY_TYPE,
  TIMESTAMP_TYPE,
  WRAPPERS,
} from "./proto_types.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

const WIRE: Readonly<Record<string, number>> = {
  double: 1,
  float: 5,
  int32: 0,
  int64: 0,
  uint32: 0,
  uint64: 0,
  sint32: 0,
  sint64: 0,
  fixed32: 5,
  fixed64: 1,
  sfixed32: 5,
  sfixed64: 1,
  bool: 0,
  string: 2,
  bytes: 2,
};

type Raw = bigint | Uint8Array;

function isDefault(value: unknown): boolean {
  return value === 0 || value === 0n || value === false || value === "" ||
    (value instanceof Uint8Array && value.length === 0);
}

/** Digits of the unscaled value (Java's `BigDecimal.precision()`). */
function precisionOf(value: BigDecimal): number {
  const digits = (value.unscaled < 0n ? -value.unscaled : value.unscaled).toString();
  return digits.length;
}

export class ProtoCodec {
  constructor(private readonly types: ProtoTypes, private readonly proto3: boolean) {}

  // ---- writing

  encode(message: ProtoMessage, value: Struct): Uint8Array {
    const out = new ByteWriter();
    this.#message(out, message, value);
    return out.toBytes();
  }

  #message(out: ByteWriter, message: ProtoMessage, struct: Struct): void {
    for (const field of message.fields) {
      const connectField = struct.schema.field(field.name);
      if (connectField === null) continue;
      const value = struct.get(connectField);
      if (value === null || value === undefined) continue;
      this.#field(out, field, message.fullName, connectField.schema, value);
    }
  }

  #field(out: ByteWriter, field: ProtoField, scope: string, schema: Schema, value: unknown): void {
    if (field.map !== null) {
      const keyField = { ...field, number: 1, type: field.map.key, map: null, label: null };
      const valueField = { ...field, number: 2, type: field.map.value, map: null, label: null };
      for (const [k, v] of mapEntries(value as Map<unknown, unknown>)) {
        const entry = new ByteWriter();
        this.#single(entry, keyField, scope, schema.keySchema(), k, true);
        if (v !== null) this.#single(entry, valueField, scope, schema.valueSchema(), v, true);
        out.uvarint(field.number * 8 + 2).uvarint(entry.length).bytes(entry.toBytes());
      }
      return;
    }
    if (field.label === "repeated") {
      const items = value as unknown[];
      if (items.length === 0) return;
      const element = schema.valueSchema();
      const wire = WIRE[field.type];
      if (
        wire !== undefined && wire !== 2 && field.packed !== false && (this.proto3 || field.packed === true)
      ) {
        const packed = new ByteWriter();
        for (const item of items) this.#scalar(packed, field.type, item);
        out.uvarint(field.number * 8 + 2).uvarint(packed.length).bytes(packed.toBytes());
        return;
      }
      for (const item of items) if (item !== null) this.#single(out, field, scope, element, item, true);
      return;
    }
    const presence = !this.proto3 || field.label === "optional";
    this.#single(out, field, scope, schema, value, presence);
  }

  /** One value of a field (a message, or a scalar skipped when it is the default without presence). */
  #single(
    out: ByteWriter,
    field: ProtoField,
    scope: string,
    schema: Schema,
    value: unknown,
    presence: boolean,
  ): void {
    if (SCALAR_TYPES.has(field.type)) {
      if (!presence && isDefault(value)) return;
      out.uvarint(field.number * 8 + WIRE[field.type]);
      this.#scalar(out, field.type, value);
      return;
    }
    const named = this.types.resolve(field.type, scope);
    if (named.kind === "enum") {
      const tag = schema.parameters?.get(`io.confluent.connect.protobuf.Enum.${String(value)}`);
      const number = tag !== undefined ? Number(tag) : named.values.find((v) => v.name === value)?.number;
      if (number === undefined) {
        throw new DataException(`${String(value)} is not a value of enum ${named.fullName}`);
      }
      if (!presence && number === 0) return;
      out.uvarint(field.number * 8).uvarint(number);
      return;
    }
    const body = new ByteWriter();
    this.#messageValue(body, named, schema, value);
    out.uvarint(field.number * 8 + 2).uvarint(body.length).bytes(body.toBytes());
  }

  #messageValue(out: ByteWriter, message: ProtoMessage, schema: Schema, value: unknown): void {
    switch (message.fullName) {
      case TIMESTAMP_TYPE: {
        const millis = ConnectTimestamp.fromLogical(schema, value as Date);
        const seconds = Math.floor(millis / 1000);
        const nanos = (millis - seconds * 1000) * 1_000_000;
        if (seconds !== 0) out.uvarint(1 * 8).uvarint(seconds);
        if (nanos !== 0) out.uvarint(2 * 8).uvarint(nanos);
        return;
      }
      case DATE_TYPE: {
        const date = value as Date;
        ConnectDate.fromLogical(schema, date);
        out.uvarint(8).uvarint(date.getUTCFullYear()).uvarint(16).uvarint(date.getUTCMonth() + 1)
          .uvarint(24).uvarint(date.getUTCDate());
        return;
      }
      case TIME_OF_DAY_TYPE: {
        const millis = ConnectTime.fromLogical(schema, value as Date);
        const parts = [
          Math.floor(millis / 3600_000),
          Math.floor(millis / 60_000) % 60,
          Math.floor(millis / 1000) % 60,
          (millis % 1000) * 1_000_000,
        ];
        parts.forEach((p, i) => {
          if (p !== 0) out.uvarint((i + 1) * 8).uvarint(p);
        });
        return;
      }
      case DECIMAL_TYPE: {
        const decimal = value as BigDecimal;
        if (!(decimal instanceof BigDecimal)) {
          throw new DataException("Invalid type for Decimal, expected BigDecimal");
        }
        const bytes = bigintToTwosComplement(decimal.unscaled);
        out.uvarint(8 + 2).uvarint(bytes.length).bytes(bytes);
        out.uvarint(16).uvarint(precisionOf(decimal));
        if (decimal.scale !== 0) out.uvarint(24).uvarint(decimal.scale);
        return;
      }
    }
    if (message.fullName in WRAPPERS) {
      const scalar = WRAPPERS[message.fullName];
      if (!isDefault(value)) {
        out.uvarint(8 + WIRE[scalar]);
        this.#scalar(out, scalar, value);
      }
      return;
    }
    if (!(value instanceof Struct)) {
      throw new DataException(`Expected a Struct for message ${message.fullName}`);
    }
    this.#message(out, message, value);
  }

  #scalar(out: ByteWriter, type: string, value: unknown): void {
    switch (type) {
      case "double":
        out.float64(value as number);
        return;
      case "float":
        out.float32(value as number);
        return;
      case "int32":
      case "int64":
      case "uint32":
      case "uint64":
        out.uvarint(value as number | bigint);
        return;
      case "sint32":
      case "sint64":
        out.zigzag(value as number | bigint);
        return;
      case "fixed32":
      case "sfixed32":
        out.fixed32(Number(value));
        return;
      case "fixed64":
      case "sfixed64":
        out.fixed64(value as number | bigint);
        return;
      case "bool":
        out.byte(value ? 1 : 0);
        return;
      case "string": {
        const bytes = encoder.encode(value as string);
        out.uvarint(bytes.length).bytes(bytes);
        return;
      }
      case "bytes": {
        const bytes = value as Uint8Array;
        out.uvarint(bytes.length).bytes(bytes);
        return;
      }
    }
  }

  // ---- reading

  decode(message: ProtoMessage, schema: Schema, bytes: Uint8Array): Struct {
    const raw = this.#rawFields(bytes);
    const struct = new Struct(schema);
    for (const field of message.fields) {
      const connectField = schema.field(field.name);
      if (connectField === null) continue;
      struct.put(
        connectField,
        this.#read(field, message.fullName, connectField.schema, raw.get(field.number) ?? []),
      );
    }
    return struct;
  }

  #rawFields(bytes: Uint8Array): Map<number, Array<{ wire: number; raw: Raw }>> {
    const input = new ByteReader(bytes);
    const fields = new Map<number, Array<{ wire: number; raw: Raw }>>();
    while (input.remaining > 0) {
      const tag = input.uvarint();
      const number = Math.floor(tag / 8);
      const wire = tag % 8;
      let raw: Raw;
      switch (wire) {
        case 0:
          raw = input.uvarintBig();
          break;
        case 1:
          raw = input.take(8);
          break;
        case 2:
          raw = input.take(input.uvarint());
          break;
        case 5:
          raw = input.take(4);
          break;
        default:
          throw new DataException(`Unsupported Protobuf wire type ${wire} (field ${number})`);
      }
      let list = fields.get(number);
      if (list === undefined) fields.set(number, list = []);
      list.push({ wire, raw });
    }
    return fields;
  }

  #read(
    field: ProtoField,
    scope: string,
    schema: Schema,
    values: Array<{ wire: number; raw: Raw }>,
  ): unknown {
    if (field.map !== null) {
      const map = new Map<unknown, unknown>();
      const keyField = { ...field, number: 1, type: field.map.key, map: null, label: null };
      const valueField = { ...field, number: 2, type: field.map.value, map: null, label: null };
      for (const { raw } of values) {
        const entry = this.#rawFields(raw as Uint8Array);
        map.set(
          this.#read(keyField, scope, schema.keySchema(), entry.get(1) ?? []),
          this.#read(valueField, scope, schema.valueSchema(), entry.get(2) ?? []),
        );
      }
      return map;
    }
    if (field.label === "repeated") {
      const element = schema.valueSchema();
      const items: unknown[] = [];
      for (const value of values) {
        const wire = WIRE[field.type];
        if (value.wire === 2 && wire !== undefined && wire !== 2) {
          const packed = new ByteReader(value.raw as Uint8Array);
          while (packed.remaining > 0) {
            const raw = wire === 0 ? packed.uvarintBig() : packed.take(wire === 1 ? 8 : 4);
            items.push(this.#value(field.type, scope, element, raw));
          }
        } else items.push(this.#value(field.type, scope, element, value.raw));
      }
      return items;
    }
    const last = values.at(-1);
    if (last !== undefined) return this.#value(field.type, scope, schema, last.raw);
    // Absent: fields without presence read as their default, as protobuf-java's getField returns it.
    if (!this.proto3 || field.label === "optional") return null;
    if (SCALAR_TYPES.has(field.type)) return this.#defaultOf(field.type);
    return this.types.resolve(field.type, scope).kind === "enum"
      ? this.#value(field.type, scope, schema, 0n)
      : null;
  }

  #defaultOf(type: string): unknown {
    switch (type) {
      case "string":
        return "";
      case "bytes":
        return new Uint8Array(0);
      case "bool":
        return false;
      case "float":
      case "double":
        return 0;
      default:
        return 0;
    }
  }

  #value(type: string, scope: string, schema: Schema, raw: Raw): unknown {
    if (SCALAR_TYPES.has(type)) return this.#scalarValue(type, schema, raw);
    const named = this.types.resolve(type, scope);
    if (named.kind === "enum") {
      const number = Number(BigInt.asIntN(32, raw as bigint));
      return named.values.find((v) => v.number === number)?.name ?? String(number);
    }
    const fields = this.#rawFields(raw as Uint8Array);
    const int = (n: number) => {
      const last = fields.get(n)?.at(-1)?.raw;
      return last === undefined ? 0n : BigInt.asIntN(64, last as bigint);
    };
    switch (named.fullName) {
      case TIMESTAMP_TYPE:
        return ConnectTimestamp.toLogical(
          schema,
          Number(int(1)) * 1000 + Math.floor(Number(int(2)) / 1_000_000),
        );
      case DATE_TYPE:
        return new Date(Date.UTC(Number(int(1)), Number(int(2)) - 1, Number(int(3))));
      case TIME_OF_DAY_TYPE:
        return ConnectTime.toLogical(
          schema,
          Number(int(1)) * 3600_000 + Number(int(2)) * 60_000 + Number(int(3)) * 1000 +
            Math.floor(Number(int(4)) / 1_000_000),
        );
      case DECIMAL_TYPE: {
        const bytes = fields.get(1)?.at(-1)?.raw as Uint8Array | undefined;
        return new BigDecimal(
          bytes === undefined || bytes.length === 0 ? 0n : twosComplementToBigint(bytes),
          Number(int(3)),
        );
      }
    }
    if (named.fullName in WRAPPERS && schema.type !== "STRUCT") {
      const last = fields.get(1)?.at(-1)?.raw;
      const scalar = WRAPPERS[named.fullName];
      return last === undefined ? this.#defaultOf(scalar) : this.#scalarValue(scalar, schema, last);
    }
    return this.decode(named, schema, raw as Uint8Array);
  }

  #scalarValue(type: string, schema: Schema, raw: Raw): unknown {
    const view = raw instanceof Uint8Array ? new DataView(raw.buffer, raw.byteOffset, raw.byteLength) : null;
    switch (type) {
      case "double":
        return view!.getFloat64(0, true);
      case "float":
        return view!.getFloat32(0, true);
      case "int32":
        return Number(BigInt.asIntN(32, raw as bigint));
      case "uint32":
        return Number(BigInt.asUintN(32, raw as bigint));
      case "int64":
      case "uint64":
        return narrowInt64(BigInt.asIntN(64, raw as bigint));
      case "sint32":
      case "sint64": {
        const v = raw as bigint;
        return narrowInt64((v & 1n) === 0n ? v >> 1n : -(v >> 1n) - 1n);
      }
      case "fixed32":
        return view!.getUint32(0, true);
      case "sfixed32":
        return view!.getInt32(0, true);
      case "fixed64":
      case "sfixed64":
        return narrowInt64(view!.getBigInt64(0, true));
      case "bool":
        return (raw as bigint) !== 0n;
      case "string":
        return decoder.decode(raw as Uint8Array);
      case "bytes":
        return (raw as Uint8Array).slice();
    }
    throw new DataException(`Unsupported Protobuf type ${type} for ${schema.type}`);
  }
}
