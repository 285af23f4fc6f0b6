/**
 * Connect Structs ↔ the message objects protobufjs encodes (protobuf.dev "Encoding"): scalars as numbers (64-bit
 * integers beyond 2^53 as Longs), enums by number, logical types as Confluent's well-known messages. protobufjs
 * leaves out proto3 fields without presence that hold their default, so a null there reads back as the default,
 * as with Confluent's converter; message fields (wrappers, logical types, nested structs) and `optional` fields
 * keep null.
 */
import protobuf from "protobufjs";
import { BigDecimal, bigintToTwosComplement, twosComplementToBigint } from "../../big_decimal.ts";
import { DataException } from "../../errors.ts";
import { ConnectDate, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { mapEntries, normalizeInt64 } from "../../values.ts";
import { protoFullName, WELL_KNOWN, WRAPPERS } from "./proto_schema.ts";

type Message = Record<string, any>;
const LONG_TYPES = new Set(["int64", "uint64", "sint64", "fixed64", "sfixed64"]);

function isDefault(value: unknown): boolean {
  return value === 0 || value === 0n || value === false || value === "" ||
    (value instanceof Uint8Array && value.length === 0);
}

/** Non-zero entries only: proto3 leaves zeros out of the well-known messages. */
function nonZero(message: Message): Message {
  return Object.fromEntries(Object.entries(message).filter(([, v]) => v !== 0));
}

/** protobufjs writes a 64-bit integer given as a decimal string exactly. */
function toLong(value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** A 64-bit integer read by protobufjs (a Long, or a number) as a number when safe, else a bigint. */
function fromLong(value: any): number | bigint {
  return normalizeInt64(BigInt.asIntN(64, BigInt(value.toString())));
}

const toNumber = (value: any): number => typeof value === "object" ? value.toNumber() : value;

/** A Struct → the message object of `type`. */
export function toProtoMessage(type: protobuf.Type, struct: Struct): Message {
  const out: Message = {};
  for (const field of type.fieldsArray) {
    const connectField = struct.schema.field(field.name);
    const value = connectField === null ? null : struct.get(connectField);
    if (value !== null && value !== undefined) {
      out[field.name] = toFieldValue(field, connectField!.schema, value);
    }
  }
  return out;
}

function toFieldValue(field: protobuf.Field, schema: Schema, value: unknown): unknown {
  if (field.map) {
    return Object.fromEntries(
      mapEntries(value as Map<unknown, unknown>).map(([k, v]) => [
        String(k),
        v === null
          ? field.resolvedType === null ? field.typeDefault : {}
          : toSingle(field, schema.valueSchema(), v),
      ]),
    );
  }
  if (field.repeated) {
    return (value as unknown[]).filter((item) => item !== null).map((item) =>
      toSingle(field, schema.valueSchema(), item)
    );
  }
  return toSingle(field, schema, value);
}

function toSingle(field: protobuf.Field, schema: Schema, value: unknown): unknown {
  const resolved = field.resolvedType;
  if (resolved === null) return toLong(value);
  if (resolved instanceof protobuf.Enum) {
    const tag = schema.parameters?.get(`io.confluent.connect.protobuf.Enum.${String(value)}`);
    const number = tag !== undefined ? Number(tag) : resolved.values[String(value)];
    if (number === undefined) {
      throw new DataException(`${String(value)} is not a value of enum ${resolved.name}`);
    }
    return number;
  }
  return toMessageValue(resolved as protobuf.Type, schema, value);
}

function toMessageValue(type: protobuf.Type, schema: Schema, value: unknown): Message {
  const fullName = protoFullName(type);
  switch (fullName) {
    case WELL_KNOWN.timestamp: {
      const millis = ConnectTimestamp.fromLogical(schema, value as Date);
      const seconds = Math.floor(millis / 1000);
      return nonZero({ seconds, nanos: (millis - seconds * 1000) * 1_000_000 });
    }
    case WELL_KNOWN.date: {
      const date = value as Date;
      ConnectDate.fromLogical(schema, date);
      return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
    }
    case WELL_KNOWN.timeOfDay: {
      const time = new Date(ConnectTime.fromLogical(schema, value as Date));
      const [hours, minutes, seconds] = [time.getUTCHours(), time.getUTCMinutes(), time.getUTCSeconds()];
      return nonZero({ hours, minutes, seconds, nanos: time.getUTCMilliseconds() * 1_000_000 });
    }
    case WELL_KNOWN.decimal: {
      if (!(value instanceof BigDecimal)) {
        throw new DataException("Invalid type for Decimal, expected BigDecimal");
      }
      // Java's BigDecimal.precision(): the digits of the unscaled value.
      const precision = (value.unscaled < 0n ? -value.unscaled : value.unscaled).toString().length;
      const scale = value.scale;
      return nonZero({ value: bigintToTwosComplement(value.unscaled), precision, scale });
    }
  }
  if (fullName in WRAPPERS) return isDefault(value) ? {} : { value: toLong(value) };
  if (!(value instanceof Struct)) throw new DataException(`Expected a Struct for message ${fullName}`);
  return toProtoMessage(type, value);
}

/** A decoded message object of `type` → the Struct of `schema` (derived from `type`, proto_to_connect.ts). */
export function fromProtoMessage(type: protobuf.Type, schema: Schema, message: Message): Struct {
  const struct = new Struct(schema);
  for (const field of type.fieldsArray) {
    const connectField = schema.field(field.name);
    if (connectField !== null) struct.put(connectField, fromFieldValue(field, connectField.schema, message));
  }
  return struct;
}

/**
 * A field of a decoded message: when absent, its default (protobufjs's prototype value, as protobuf-java's
 * getField returns it), or null for a field with presence (message fields, `optional`).
 */
function fromFieldValue(field: protobuf.Field, schema: Schema, message: Message): unknown {
  const value = Object.hasOwn(message, field.name) || !field.hasPresence ? message[field.name] : null;
  if (field.map) {
    const long = LONG_TYPES.has((field as any).keyType as string);
    return new Map(
      Object.entries(value).map(([k, v]) => [
        long ? fromLong(protobuf.util.LongBits.fromHash(k).toLong()) : fromScalar(schema.keySchema(), k),
        fromSingle(field, schema.valueSchema(), v),
      ]),
    );
  }
  if (field.repeated) return value.map((v: unknown) => fromSingle(field, schema.valueSchema(), v));
  return value === null ? null : fromSingle(field, schema, value);
}

/** A map key (always a string in protobufjs) as the key schema's type. */
function fromScalar(schema: Schema, key: string): unknown {
  if (schema.type === "BOOLEAN") return key === "true";
  return schema.type === "STRING" ? key : Number(key);
}

function fromSingle(field: protobuf.Field, schema: Schema, value: any): unknown {
  const resolved = field.resolvedType;
  if (resolved === null) {
    if (LONG_TYPES.has(field.type)) return fromLong(value);
    return field.type === "bytes" ? new Uint8Array(value ?? []) : value;
  }
  if (resolved instanceof protobuf.Enum) return resolved.valuesById[value] ?? String(value);
  return fromMessageValue(resolved as protobuf.Type, schema, value ?? (resolved as protobuf.Type).create());
}

function fromMessageValue(type: protobuf.Type, schema: Schema, message: Message): unknown {
  const fullName = protoFullName(type);
  const int = (name: string) => toNumber(message[name]);
  switch (fullName) {
    case WELL_KNOWN.timestamp:
      return ConnectTimestamp.toLogical(schema, int("seconds") * 1000 + Math.floor(int("nanos") / 1_000_000));
    case WELL_KNOWN.date:
      return new Date(Date.UTC(int("year"), int("month") - 1, int("day")));
    case WELL_KNOWN.timeOfDay:
      return ConnectTime.toLogical(
        schema,
        int("hours") * 3600_000 + int("minutes") * 60_000 + int("seconds") * 1000 +
          Math.floor(int("nanos") / 1_000_000),
      );
    case WELL_KNOWN.decimal: {
      const bytes: Uint8Array | undefined = message.value;
      return new BigDecimal(
        bytes === undefined || bytes.length === 0 ? 0n : twosComplementToBigint(bytes),
        int("scale"),
      );
    }
  }
  if (fullName in WRAPPERS && schema.type !== "STRUCT") {
    return fromSingle(type.fieldsArray[0], schema, message.value);
  }
  return fromProtoMessage(type, schema, message);
}
