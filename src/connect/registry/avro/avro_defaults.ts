/**
 * Default values between Connect and Avro schema JSON (Confluent's `defaultValueFromConnect` /
 * `defaultValueFromAvro`): logical values go through their underlying type, bytes are ISO-8859-1 strings (the
 * Avro specification's JSON form of bytes), structs and string-keyed maps are objects.
 */
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "../../logical.ts";
import {
  DATE_LOGICAL_NAME,
  DECIMAL_LOGICAL_NAME,
  TIME_LOGICAL_NAME,
  TIMESTAMP_LOGICAL_NAME,
} from "../../logical_names.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { mapEntries } from "../../values.ts";
import type { BigDecimal } from "../../big_decimal.ts";

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += String.fromCharCode(b);
  return out;
}

/** Converts a logical value to its underlying Connect value (Date → days, BigDecimal → bytes, ...). */
export function toUnderlying(schema: Schema, value: unknown): unknown {
  switch (schema.name) {
    case DECIMAL_LOGICAL_NAME:
      return ConnectDecimal.fromLogical(schema, value as BigDecimal);
    case DATE_LOGICAL_NAME:
      return ConnectDate.fromLogical(schema, value as Date);
    case TIME_LOGICAL_NAME:
      return ConnectTime.fromLogical(schema, value as Date);
    case TIMESTAMP_LOGICAL_NAME:
      return ConnectTimestamp.fromLogical(schema, value as Date);
    default:
      return value;
  }
}

/** Converts an underlying value to the logical value of `schema` (identity for non-logical schemas). */
export function toLogical(schema: Schema, value: unknown): unknown {
  switch (schema.name) {
    case DECIMAL_LOGICAL_NAME:
      return ConnectDecimal.toLogical(schema, value as Uint8Array);
    case DATE_LOGICAL_NAME:
      return ConnectDate.toLogical(schema, Number(value));
    case TIME_LOGICAL_NAME:
      return ConnectTime.toLogical(schema, Number(value));
    case TIMESTAMP_LOGICAL_NAME:
      return ConnectTimestamp.toLogical(schema, value as number | bigint);
    default:
      return value;
  }
}

/** A Connect default as Avro default JSON. */
export function encodeLatin1Default(schema: Schema, value: unknown): unknown {
  const v = toUnderlying(schema, value);
  switch (schema.type) {
    case "INT64":
      return typeof v === "bigint" ? Number(v) : v;
    case "BYTES":
      return latin1(v as Uint8Array);
    case "ARRAY":
      return (v as unknown[]).map((item) => encodeLatin1Default(schema.valueSchema(), item));
    case "MAP": {
      const entries = mapEntries(v as Map<unknown, unknown>);
      if (schema.keySchema().type === "STRING" && !schema.keySchema().isOptional) {
        return Object.fromEntries(entries.map(([k, x]) => [k, encodeLatin1Default(schema.valueSchema(), x)]));
      }
      return entries.map((
        [k, x],
      ) => [encodeLatin1Default(schema.keySchema(), k), encodeLatin1Default(schema.valueSchema(), x)]);
    }
    case "STRUCT": {
      const struct = v as Struct;
      return Object.fromEntries(
        schema.fields().map((f) => [f.name, encodeLatin1Default(f.schema, struct.get(f))]),
      );
    }
    default:
      return v;
  }
}
