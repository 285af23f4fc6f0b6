/**
 * Kafka's `TimestampConverter$Key` / `TimestampConverter$Value`: converts a timestamp field (`field`), or the whole
 * key/value (`field` empty), between `string` (a SimpleDateFormat `format`, UTC), `unix` (epoch number in
 * `unix.precision`: seconds, milliseconds, microseconds or nanoseconds), and the Connect `Date`, `Time` and
 * `Timestamp` logical types.
 *
 * The source representation comes from the schema (Timestamp/Date/Time logical names, STRING, INT64) or, when
 * schemaless, from the value (a JS Date is a Timestamp, an integer a unix time, a string is parsed with `format`).
 * Converting to Date drops the time of day; to Time drops the date (both in UTC). Unix conversions truncate
 * toward zero, as Java's `TimeUnit` does. Null values stay null.
 */
import { DataException } from "../errors.ts";
import { ConnectDate, ConnectTime, ConnectTimestamp, MILLIS_PER_DAY } from "../logical.ts";
import { Schema } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { Struct } from "../struct.ts";
import { normalizeInt64 } from "../values.ts";
import {
  type ConfigKeyDef,
  REPLACE_NULL_WITH_DEFAULT_DEF,
  TransformConfig,
  TransformConfigException,
} from "./config.ts";
import { SchemaCache } from "./schema_cache.ts";
import { DateParseError, DatePatternError, SimpleDateFormat } from "./simple_date_format.ts";
import {
  copySchemaBasics,
  fieldValue,
  javaClassName,
  MapBuilder,
  mapGet,
  operatingSchema,
  operatingValue,
  type RecordSide,
  requireMap,
  requireStructOrNull,
  withOperating,
} from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

type TimestampType = "string" | "unix" | "Date" | "Time" | "Timestamp";
const TIMESTAMP_TYPES: readonly TimestampType[] = ["string", "unix", "Date", "Time", "Timestamp"];
type UnixPrecision = "seconds" | "milliseconds" | "microseconds" | "nanoseconds";

export const TIMESTAMP_CONVERTER_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "field",
    type: "STRING",
    default: "",
    importance: "HIGH",
    documentation: "The field containing the timestamp, or empty if the entire value is a timestamp",
  },
  {
    name: "target.type",
    type: "STRING",
    validValues: TIMESTAMP_TYPES,
    importance: "HIGH",
    documentation: "The desired timestamp representation: string, unix, Date, Time, or Timestamp",
  },
  {
    name: "format",
    type: "STRING",
    default: "",
    importance: "MEDIUM",
    documentation:
      "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when " +
      "type=string or used to parse the input if the input is a string.",
  },
  {
    name: "unix.precision",
    type: "STRING",
    default: "milliseconds",
    validValues: ["nanoseconds", "microseconds", "milliseconds", "seconds"],
    importance: "LOW",
    documentation: "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or " +
      "nanoseconds. Used to generate the output when type=unix or used to parse the input if the input is a Long." +
      "Note: This SMT will cause precision loss during conversions from, and to, values with sub-millisecond " +
      "components.",
  },
  REPLACE_NULL_WITH_DEFAULT_DEF,
];

const PURPOSE = "converting timestamp formats";

/** Epoch units per millisecond, as a ratio: [multiply, divide]. */
const PRECISION_SCALE: Record<UnixPrecision, [bigint, bigint]> = {
  seconds: [1n, 1000n],
  milliseconds: [1n, 1n],
  microseconds: [1000n, 1n],
  nanoseconds: [1_000_000n, 1n],
};

function schemaFor(type: TimestampType, optional: boolean): Schema {
  switch (type) {
    case "string":
      return optional ? Schema.OPTIONAL_STRING_SCHEMA : Schema.STRING_SCHEMA;
    case "unix":
      return optional ? Schema.OPTIONAL_INT64_SCHEMA : Schema.INT64_SCHEMA;
    case "Date":
      return optional ? ConnectDate.builder().optional().build() : ConnectDate.SCHEMA;
    case "Time":
      return optional ? ConnectTime.builder().optional().build() : ConnectTime.SCHEMA;
    case "Timestamp":
      return optional ? ConnectTimestamp.builder().optional().build() : ConnectTimestamp.SCHEMA;
  }
}

/** Kafka's `timestampTypeFromSchema`. */
function typeFromSchema(schema: Schema): TimestampType {
  if (schema.name === ConnectTimestamp.LOGICAL_NAME) return "Timestamp";
  if (schema.name === ConnectDate.LOGICAL_NAME) return "Date";
  if (schema.name === ConnectTime.LOGICAL_NAME) return "Time";
  if (schema.type === "STRING") return "string";
  if (schema.type === "INT64") return "unix";
  throw new DataException(`Schema ${schema} does not correspond to a known timestamp type format`);
}

/** Kafka's `inferTimestampType` for schemaless values. */
function typeFromValue(value: unknown): TimestampType {
  if (value instanceof Date) return "Timestamp";
  if (typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value))) return "unix";
  if (typeof value === "string") return "string";
  throw new DataException(
    `TimestampConverter does not support class ${javaClassName(value)} objects as timestamps`,
  );
}

export class TimestampConverter<R extends AnyRecord> implements Transformation<R> {
  #field = "";
  #target: TimestampType = "Timestamp";
  #format: SimpleDateFormat | null = null;
  #precision: UnixPrecision = "milliseconds";
  #replaceNullWithDefault = true;
  readonly #schemaCache = new SchemaCache();

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(TIMESTAMP_CONVERTER_CONFIG_DEF, props);
    this.#field = config.getString("field")!;
    this.#target = config.getString("target.type") as TimestampType;
    this.#precision = config.getString("unix.precision") as UnixPrecision;
    this.#replaceNullWithDefault = config.getBoolean("replace.null.with.default");
    const pattern = config.getString("format")!;
    if (this.#target === "string" && pattern.trim() === "") {
      throw new TransformConfigException(
        "format",
        "TimestampConverter requires format option to be specified when using string timestamps",
      );
    }
    this.#format = null;
    if (pattern.trim() !== "") {
      try {
        this.#format = new SimpleDateFormat(pattern);
      } catch (e) {
        if (!(e instanceof DatePatternError)) throw e;
        throw new TransformConfigException(
          "format",
          `TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: ${pattern}`,
        );
      }
    }
  }

  apply(record: R): R {
    const schema = operatingSchema(record, this.side);
    const value = operatingValue(record, this.side);
    return schema === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, schema, value);
  }

  #applySchemaless(record: R, raw: unknown): R {
    if (raw === null || this.#field === "") {
      return withOperating(record, this.side, null, this.#convert(raw, null));
    }
    const value = requireMap(raw, PURPOSE);
    const updated = MapBuilder.like(value, true).set(
      this.#field,
      this.#convert(mapGet(value, this.#field), null),
    );
    return withOperating(record, this.side, null, updated.build());
  }

  #applyWithSchema(record: R, schema: Schema, raw: unknown): R {
    if (this.#field === "") {
      const converted = this.#convert(raw, typeFromSchema(schema));
      return withOperating(record, this.side, schemaFor(this.#target, schema.isOptional), converted);
    }
    const value = requireStructOrNull(raw, PURPOSE);
    const updatedSchema = this.#schemaCache.getOrCompute(schema, (s) => this.#updatedSchema(s));
    return withOperating(record, this.side, updatedSchema, this.#convertStruct(value, updatedSchema));
  }

  #updatedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const field of schema.fields()) {
      builder.field(
        field.name,
        field.name === this.#field ? schemaFor(this.#target, field.schema.isOptional) : field.schema,
      );
    }
    if (schema.isOptional) builder.optional();
    if (schema.defaultValue !== null) {
      builder.defaultValue(this.#convertStruct(schema.defaultValue as Struct, builder.build()));
    }
    return builder.build();
  }

  #convertStruct(value: Struct | null, updatedSchema: Schema): Struct | null {
    if (value === null) return null;
    const updated = new Struct(updatedSchema);
    for (const field of value.schema.fields()) {
      const original = fieldValue(value, field, this.#replaceNullWithDefault);
      updated.put(
        field.name,
        field.name === this.#field ? this.#convert(original, typeFromSchema(field.schema)) : original,
      );
    }
    return updated;
  }

  /** Kafka's `convertTimestamp`: `sourceType` null means infer it from the value. */
  #convert(value: unknown, sourceType: TimestampType | null): unknown {
    if (value === null || value === undefined) return null;
    const instant = this.#toInstant(value, sourceType ?? typeFromValue(value));
    return this.#fromInstant(instant);
  }

  #toInstant(value: unknown, type: TimestampType): Date {
    switch (type) {
      case "string": {
        if (typeof value !== "string") {
          throw new DataException(
            `Expected string timestamp to be a String, but found class ${javaClassName(value)}`,
          );
        }
        if (this.#format === null) {
          throw new DataException(
            "TimestampConverter requires format option to be specified to parse string timestamps",
          );
        }
        try {
          return this.#format.parse(value);
        } catch (e) {
          if (!(e instanceof DateParseError)) throw e;
          throw new DataException(
            `Could not parse timestamp: value (${value}) does not match pattern (${this.#format.toPattern()})`,
            { cause: e },
          );
        }
      }
      case "unix": {
        if (typeof value !== "bigint" && !(typeof value === "number" && Number.isInteger(value))) {
          throw new DataException(
            `Expected Unix timestamp to be a Long, but found class ${javaClassName(value)}`,
          );
        }
        const [multiply, divide] = PRECISION_SCALE[this.#precision];
        // Units → millis: the inverse ratio; bigint division truncates toward zero like TimeUnit.
        const millis = BigInt(value) * divide / multiply;
        return ConnectTimestamp.toLogical(ConnectTimestamp.SCHEMA, millis);
      }
      default:
        if (!(value instanceof Date)) {
          throw new DataException(
            `Expected ${type} to be a java.util.Date, but found class ${javaClassName(value)}`,
          );
        }
        return value;
    }
  }

  #fromInstant(instant: Date): unknown {
    switch (this.#target) {
      case "string":
        return this.#format!.format(instant);
      case "unix": {
        const [multiply, divide] = PRECISION_SCALE[this.#precision];
        return normalizeInt64(BigInt(instant.getTime()) * multiply / divide);
      }
      case "Date": {
        const millis = instant.getTime();
        return new Date(millis - (((millis % MILLIS_PER_DAY) + MILLIS_PER_DAY) % MILLIS_PER_DAY));
      }
      case "Time": {
        const millis = instant.getTime();
        return new Date(((millis % MILLIS_PER_DAY) + MILLIS_PER_DAY) % MILLIS_PER_DAY);
      }
      case "Timestamp":
        return instant;
    }
  }

  close(): void {
    this.#schemaCache.clear();
  }
}
