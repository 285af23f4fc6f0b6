/**
 * Connect's built-in logical types (Kafka's `org.apache.kafka.connect.data.{Decimal,Date,Time,Timestamp}`).
 *
 * | Logical type       | Underlying schema        | Encoded value                            | JS value      |
 * |--------------------|--------------------------|------------------------------------------|---------------|
 * | `ConnectDecimal`   | BYTES, `scale` parameter | big-endian two's-complement unscaled int | `BigDecimal`  |
 * | `ConnectDate`      | INT32                    | days since 1970-01-01 (UTC)              | `Date` (00:00 UTC) |
 * | `ConnectTime`      | INT32                    | milliseconds since midnight              | `Date` on 1970-01-01 UTC |
 * | `ConnectTimestamp` | INT64                    | milliseconds since the epoch             | `Date`        |
 *
 * All have version 1. The names carry a `Connect` prefix only to avoid shadowing JavaScript's `Date`.
 * `fromLogical` encodes and `toLogical` decodes, with Kafka's checks and error messages.
 */
import { DataException } from "./errors.ts";
import { BigDecimal, bigintToTwosComplement, twosComplementToBigint } from "./big_decimal.ts";
import {
  DATE_LOGICAL_NAME,
  DECIMAL_LOGICAL_NAME,
  TIME_LOGICAL_NAME,
  TIMESTAMP_LOGICAL_NAME,
} from "./logical_names.ts";
import type { Schema } from "./schema.ts";
import { SchemaBuilder } from "./schema_builder.ts";

export {
  DATE_LOGICAL_NAME,
  DECIMAL_LOGICAL_NAME,
  TEMPORAL_LOGICAL_NAMES,
  TIME_LOGICAL_NAME,
  TIMESTAMP_LOGICAL_NAME,
} from "./logical_names.ts";

export const MILLIS_PER_DAY = 24 * 60 * 60 * 1000;

function requireName(schema: Schema, name: string, what: string): void {
  if (schema.name !== name) {
    throw new DataException(`Requested conversion of ${what} object but the schema does not match.`);
  }
}

/** The Decimal logical type: an exact decimal with the scale fixed by the schema's `scale` parameter. */
export const ConnectDecimal = Object.freeze({
  LOGICAL_NAME: DECIMAL_LOGICAL_NAME,
  SCALE_FIELD: "scale",

  /** A BYTES builder named `org.apache.kafka.connect.data.Decimal`, version 1, parameter `scale`. */
  builder(scale: number): SchemaBuilder {
    return SchemaBuilder.bytes().name(DECIMAL_LOGICAL_NAME).parameter("scale", String(scale)).version(1);
  },

  schema(scale: number): Schema {
    return ConnectDecimal.builder(scale).build();
  },

  /** The scale from the schema's parameters (Kafka's messages when missing or not an integer). */
  scale(schema: Schema): number {
    const text = schema.parameters?.get("scale");
    if (text === undefined) throw new DataException("Invalid Decimal schema: scale parameter not found.");
    if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
      throw new DataException(`Invalid scale parameter found in Decimal schema: ${text}`);
    }
    return Number(text);
  },

  /** Encodes the unscaled value as two's-complement bytes; the value's scale must equal the schema's. */
  fromLogical(schema: Schema, value: BigDecimal): Uint8Array {
    const schemaScale = ConnectDecimal.scale(schema);
    if (value.scale !== schemaScale) {
      throw new DataException(
        "Decimal value has mismatching scale for given Decimal schema. " +
          `Schema has scale ${schemaScale}, value has scale ${value.scale}.`,
      );
    }
    return bigintToTwosComplement(value.unscaled);
  },

  /** Decodes two's-complement bytes with the schema's scale: `00 9C` with scale 2 is 1.56. */
  toLogical(schema: Schema, bytes: Uint8Array): BigDecimal {
    return new BigDecimal(twosComplementToBigint(bytes), ConnectDecimal.scale(schema));
  },
});

/** The Date logical type: a calendar day, encoded as days since the epoch. */
export const ConnectDate = Object.freeze({
  LOGICAL_NAME: DATE_LOGICAL_NAME,
  builder(): SchemaBuilder {
    return SchemaBuilder.int32().name(DATE_LOGICAL_NAME).version(1);
  },
  SCHEMA: SchemaBuilder.int32().name(DATE_LOGICAL_NAME).version(1).build() as Schema,

  /** Days since the epoch; the Date must be at midnight UTC. */
  fromLogical(schema: Schema, value: Date): number {
    requireName(schema, DATE_LOGICAL_NAME, "Date");
    const millis = value.getTime();
    if (((millis % MILLIS_PER_DAY) + MILLIS_PER_DAY) % MILLIS_PER_DAY !== 0) {
      throw new DataException(
        "Kafka Connect Date type should not have any time fields set to non-zero values.",
      );
    }
    return millis / MILLIS_PER_DAY;
  },

  toLogical(schema: Schema, days: number): Date {
    requireName(schema, DATE_LOGICAL_NAME, "Date");
    return new Date(days * MILLIS_PER_DAY);
  },
});

/** The Time logical type: a time of day, encoded as milliseconds since midnight (a Date on 1970-01-01 UTC). */
export const ConnectTime = Object.freeze({
  LOGICAL_NAME: TIME_LOGICAL_NAME,
  builder(): SchemaBuilder {
    return SchemaBuilder.int32().name(TIME_LOGICAL_NAME).version(1);
  },
  SCHEMA: SchemaBuilder.int32().name(TIME_LOGICAL_NAME).version(1).build() as Schema,

  /** Milliseconds since midnight; the Date must fall on 1970-01-01 UTC. */
  fromLogical(schema: Schema, value: Date): number {
    requireName(schema, TIME_LOGICAL_NAME, "Time");
    const millis = value.getTime();
    if (millis < 0 || millis > MILLIS_PER_DAY) {
      throw new DataException(
        "Kafka Connect Time type should not have any date fields set to non-zero values.",
      );
    }
    return millis;
  },

  toLogical(schema: Schema, millis: number): Date {
    // Kafka's message says "Date object" here too.
    requireName(schema, TIME_LOGICAL_NAME, "Date");
    if (millis < 0 || millis > MILLIS_PER_DAY) {
      throw new DataException(
        "Time values must use number of milliseconds greater than 0 and less than 86400000",
      );
    }
    return new Date(millis);
  },
});

/** The Timestamp logical type: an instant, encoded as milliseconds since the epoch. */
export const ConnectTimestamp = Object.freeze({
  LOGICAL_NAME: TIMESTAMP_LOGICAL_NAME,
  builder(): SchemaBuilder {
    return SchemaBuilder.int64().name(TIMESTAMP_LOGICAL_NAME).version(1);
  },
  SCHEMA: SchemaBuilder.int64().name(TIMESTAMP_LOGICAL_NAME).version(1).build() as Schema,

  fromLogical(schema: Schema, value: Date): number {
    requireName(schema, TIMESTAMP_LOGICAL_NAME, "Timestamp");
    return value.getTime();
  },

  /** Accepts epoch millis as a number or bigint; throws `DataException` outside the JS Date range. */
  toLogical(schema: Schema, millis: number | bigint): Date {
    requireName(schema, TIMESTAMP_LOGICAL_NAME, "Timestamp");
    const date = new Date(Number(millis));
    if (Number.isNaN(date.getTime())) {
      throw new DataException(`Timestamp ${millis} is outside the supported range of JavaScript dates`);
    }
    return date;
  },
});

/** Converts a logical value to its underlying Connect value (Date → days, BigDecimal → bytes, ...). */
export function logicalToUnderlying(schema: Schema, value: unknown): unknown {
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
export function underlyingToLogical(schema: Schema, value: unknown): unknown {
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
