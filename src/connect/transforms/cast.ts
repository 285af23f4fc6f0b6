/**
 * Kafka's `Cast$Key` / `Cast$Value`: casts fields (`spec=a:int32,b:string`) or the whole key/value (`spec=int64`)
 * to int8, int16, int32, int64, float32, float64, boolean or string.
 *
 * Kafka's conversion rules, reproduced exactly:
 * - numbers narrow like Java casts (`(byte) 300` = 44; doubles truncate and saturate first); booleans give 1/0;
 * - strings parse with Java's `parseXxx` (`"1.5"` to int32 fails; `"yes"` to boolean is false); an unparsable
 *   string is a `DataException` ("Value (x) was out of range for requested data type");
 * - to boolean a number is `longValue() != 0`, so 0.5 casts to false;
 * - to string: Java's `toString()` (float64 1.0 → "1.0"), bytes as base64, Date/Time/Timestamp values in ISO
 *   format (`yyyy-MM-dd`, `HH:mm:ss.SSS'Z'` or `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`, by what the value holds);
 * - Date/Time/Timestamp cast to a number use their encoded form (days, millis); Decimals convert as numbers;
 * - bytes only cast to string; maps, arrays and structs cannot be cast.
 * A null key/value passes through; null fields stay null.
 *
 * Known difference: a schemaless whole number (JS has no distinct float for 1.0) prints as `1`, not `1.0`.
 */
import { BigDecimal } from "../big_decimal.ts";
import { ConfigException, DataException } from "../errors.ts";
import { formatJavaDouble, formatJavaFloat } from "../java_format.ts";
import { ConnectDate, ConnectTime, ConnectTimestamp } from "../logical.ts";
import { type Schema, SCHEMA_TYPES, type SchemaType } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { Struct } from "../struct.ts";
import { schemalessTypeOf } from "../values.ts";
import {
  type ConfigKeyDef,
  type ConfigValue,
  javaText,
  TransformConfig,
  TransformConfigException,
} from "./config.ts";
import { javaSplit } from "./java_split.ts";
import {
  type JavaNumber,
  narrowToInt,
  narrowToLong,
  NumberFormatError,
  parseJavaDouble,
  parseJavaFloat,
  parseJavaInteger,
  toDouble,
  toFloat,
} from "./java_numbers.ts";
import { SchemaCache } from "./schema_cache.ts";
import { SimpleDateFormat } from "./simple_date_format.ts";
import {
  copySchemaBasics,
  javaClassName,
  MapBuilder,
  mapGet,
  operatingSchema,
  operatingValue,
  type RecordSide,
  requireMap,
  requireStruct,
  withOperating,
} from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

/** Cast's output types, in Kafka's order (as its messages list them). */
const OUTPUT_TYPES: readonly SchemaType[] = [
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "FLOAT32",
  "FLOAT64",
  "BOOLEAN",
  "STRING",
];
const INPUT_TYPES: readonly SchemaType[] = [...OUTPUT_TYPES, "BYTES"];
const SCHEMA_TYPE_NAMES: ReadonlySet<string> = new Set(SCHEMA_TYPES);

/** The whole-value cast, when the spec is a single type (Kafka keys it by a null field name). */
const WHOLE_VALUE = Symbol("whole value");

export interface CastSpec {
  fields: Map<string, SchemaType>;
  wholeValue: SchemaType | null;
}

function outputType(text: string): SchemaType {
  const upper = text.trim().toUpperCase();
  if (!SCHEMA_TYPE_NAMES.has(upper)) {
    throw new TransformConfigException("spec", `Invalid type found in casting spec: ${text.trim()}`);
  }
  const type = upper as SchemaType;
  if (!OUTPUT_TYPES.includes(type)) {
    throw new TransformConfigException(
      "spec",
      `Cast transformation does not support casting to ${type}; supported types are [${
        OUTPUT_TYPES.join(", ")
      }]`,
    );
  }
  return type;
}

/** Kafka's `parseFieldTypes`: `field:type` pairs, or one bare type for the whole value. */
function parseCastSpec(mappings: readonly string[]): CastSpec {
  const fields = new Map<string | typeof WHOLE_VALUE, SchemaType>();
  let wholeValue = false;
  for (const mapping of mappings) {
    const parts = javaSplit(mapping, ":");
    if (parts.length > 2) {
      // Kafka reports this under ReplaceField's key name; kept for identical messages.
      throw TransformConfigException.invalid(
        "renames",
        javaText(mappings),
        `Invalid rename mapping: ${mapping}`,
      );
    }
    if (parts.length === 1) {
      fields.set(WHOLE_VALUE, outputType(parts[0]));
      wholeValue = true;
    } else {
      fields.set(parts[0].trim(), outputType(parts[1]));
    }
  }
  if (wholeValue && mappings.length > 1) {
    throw new TransformConfigException(
      "spec",
      "Cast transformations that specify a type to cast the entire value to may ony specify a single cast in their spec",
    );
  }
  const byField = new Map([...fields].filter(([k]) => k !== WHOLE_VALUE) as [string, SchemaType][]);
  return { fields: byField, wholeValue: fields.get(WHOLE_VALUE) ?? null };
}

function specValidator(value: ConfigValue): string | undefined {
  const list = value as string[];
  if (list.length === 0) return "Must specify at least one field to cast.";
  try {
    parseCastSpec(list);
  } catch (e) {
    if (e instanceof ConfigException) return e.message;
    throw e;
  }
  return undefined;
}

export const CAST_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "spec",
    type: "LIST",
    importance: "HIGH",
    documentation:
      "List of fields and the type to cast them to of the form field1:type,field2:type to cast fields " +
      "of Maps or Structs. A single type to cast the entire value. Valid types are int8, int16, int32, int64, " +
      "float32, float64, boolean, and string. Note that binary fields can only be cast to string.",
    validator: specValidator,
  },
];

const PURPOSE = "cast types";

// ---- Value conversion ----

/** Kafka's `Values.dateFormatFor`: time-only, date-only or full ISO format depending on the value. */
const TIME_FORMAT = new SimpleDateFormat("HH:mm:ss.SSS'Z'");
const DATE_FORMAT = new SimpleDateFormat("yyyy-MM-dd");
const TIMESTAMP_FORMAT = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

function isoText(date: Date): string {
  const millis = date.getTime();
  if (millis < 86_400_000) return TIME_FORMAT.format(date);
  if (millis % 86_400_000 === 0) return DATE_FORMAT.format(date);
  return TIMESTAMP_FORMAT.format(date);
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Encodes Date/Time/Timestamp values to their numbers (Kafka's `encodeLogicalType`). */
function encodeLogical(schema: Schema, value: unknown): unknown {
  if (!(value instanceof Date)) return value;
  switch (schema.name) {
    case ConnectDate.LOGICAL_NAME:
      return ConnectDate.fromLogical(schema, value);
    case ConnectTime.LOGICAL_NAME:
      return ConnectTime.fromLogical(schema, value);
    case ConnectTimestamp.LOGICAL_NAME:
      return ConnectTimestamp.fromLogical(schema, value);
  }
  return value;
}

function unexpected(value: unknown): DataException {
  return new DataException(`Unexpected type in Cast transformation: class ${javaClassName(value)}`);
}

function isNumeric(value: unknown): value is JavaNumber {
  return typeof value === "number" || typeof value === "bigint" || value instanceof BigDecimal;
}

/** Converts `value` (of `sourceType`; floating-point when FLOAT32/FLOAT64) to `target`. */
function castTo(target: SchemaType, value: unknown, sourceType: SchemaType): unknown {
  const floating = sourceType === "FLOAT32" || sourceType === "FLOAT64";
  const bits = { INT8: 8, INT16: 16, INT32: 32 } as const;
  switch (target) {
    case "INT8":
    case "INT16":
    case "INT32": {
      const width = bits[target];
      if (isNumeric(value)) return narrowToInt(value, floating, width);
      if (typeof value === "boolean") return value ? 1 : 0;
      if (typeof value === "string") return parseJavaInteger(value, width);
      throw unexpected(value);
    }
    case "INT64":
      if (isNumeric(value)) return narrowToLong(value, floating);
      if (typeof value === "boolean") return value ? 1 : 0;
      if (typeof value === "string") return parseJavaInteger(value, 64);
      throw unexpected(value);
    case "FLOAT32":
      if (isNumeric(value)) return toFloat(value);
      if (typeof value === "boolean") return value ? 1 : 0;
      if (typeof value === "string") return parseJavaFloat(value);
      throw unexpected(value);
    case "FLOAT64":
      if (isNumeric(value)) return toDouble(value);
      if (typeof value === "boolean") return value ? 1 : 0;
      if (typeof value === "string") return parseJavaDouble(value);
      throw unexpected(value);
    case "BOOLEAN":
      if (isNumeric(value)) return Number(narrowToLong(value, floating)) !== 0;
      if (typeof value === "boolean") return value;
      if (typeof value === "string") return value.toLowerCase() === "true";
      throw unexpected(value);
    case "STRING":
      return javaToString(value, sourceType);
  }
  throw new DataException(`${target} is not supported in the Cast transformation.`);
}

/** Java's `toString()` of the boxed value a Connect value of `type` would be. */
function javaToString(value: unknown, type: SchemaType): string {
  if (value instanceof Date) return isoText(value);
  if (value instanceof Uint8Array) return base64(value);
  if (typeof value === "number") {
    if (type === "FLOAT32") return formatJavaFloat(value);
    if (type === "FLOAT64") return formatJavaDouble(value);
    return String(value);
  }
  return String(value);
}

/** Kafka's `castValueToType`: `schema` null means schemaless (the type is inferred from the JS value). */
function castValueToType(schema: Schema | null, value: unknown, target: SchemaType): unknown {
  if (value === null || value === undefined) return null;
  const sourceType = schema !== null ? schema.type : schemalessTypeOf(value);
  if (sourceType === null) {
    throw new DataException(
      `Cast transformation was passed a value of type class ${
        javaClassName(value)
      } which is not supported by Connect's data API`,
    );
  }
  if (!INPUT_TYPES.includes(sourceType)) {
    throw new DataException(
      `Cast transformation does not support casting from ${sourceType}; supported types are [${
        INPUT_TYPES.join(", ")
      }]`,
    );
  }
  const input = schema !== null && schema.name !== null && target !== "STRING"
    ? encodeLogical(schema, value)
    : value;
  try {
    return castTo(target, input, sourceType);
  } catch (e) {
    if (e instanceof NumberFormatError) {
      throw new DataException(`Value (${String(value)}) was out of range for requested data type`, {
        cause: e,
      });
    }
    throw e;
  }
}

function builderFor(type: SchemaType): SchemaBuilder {
  return SchemaBuilder.type(type);
}

export class Cast<R extends AnyRecord> implements Transformation<R> {
  #spec: CastSpec = { fields: new Map(), wholeValue: null };
  readonly #schemaCache = new SchemaCache();

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(CAST_CONFIG_DEF, props);
    this.#spec = parseCastSpec(config.getList("spec"));
  }

  apply(record: R): R {
    const value = operatingValue(record, this.side);
    if (value === null) return record;
    const schema = operatingSchema(record, this.side);
    return schema === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, schema, value);
  }

  #applySchemaless(record: R, raw: unknown): R {
    const whole = this.#spec.wholeValue;
    if (whole !== null) return withOperating(record, this.side, null, castValueToType(null, raw, whole));
    const value = requireMap(raw, PURPOSE);
    const updated = MapBuilder.like(value, true);
    for (const [field, type] of this.#spec.fields) {
      updated.set(field, castValueToType(null, mapGet(value, field), type));
    }
    return withOperating(record, this.side, null, updated.build());
  }

  #applyWithSchema(record: R, schema: Schema, raw: unknown): R {
    const updatedSchema = this.#schemaCache.getOrCompute(schema, (s) => this.#updatedSchema(s));
    const whole = this.#spec.wholeValue;
    if (whole !== null) {
      return withOperating(record, this.side, updatedSchema, castValueToType(schema, raw, whole));
    }
    const value = requireStruct(raw, PURPOSE);
    const updated = new Struct(updatedSchema);
    for (const field of value.schema.fields()) {
      const original = value.get(field);
      const target = this.#spec.fields.get(field.name);
      updated.put(
        field.name,
        target !== undefined ? castValueToType(field.schema, original, target) : original,
      );
    }
    return withOperating(record, this.side, updatedSchema, updated);
  }

  #updatedSchema(schema: Schema): Schema {
    const whole = this.#spec.wholeValue;
    let builder: SchemaBuilder;
    if (whole !== null) {
      builder = copySchemaBasics(schema, builderFor(whole));
    } else {
      builder = copySchemaBasics(schema, SchemaBuilder.struct());
      for (const field of schema.fields()) {
        const target = this.#spec.fields.get(field.name);
        if (target === undefined) {
          builder.field(field.name, field.schema);
          continue;
        }
        const fieldBuilder = builderFor(target);
        if (field.schema.isOptional) fieldBuilder.optional();
        if (field.schema.defaultValue !== null) {
          fieldBuilder.defaultValue(castValueToType(field.schema, field.schema.defaultValue, target));
        }
        builder.field(field.name, fieldBuilder.build());
      }
    }
    if (schema.isOptional) builder.optional();
    if (schema.defaultValue !== null) {
      builder.defaultValue(castValueToType(schema, schema.defaultValue, builder.type));
    }
    return builder.build();
  }

  close(): void {
    this.#schemaCache.clear();
  }
}
