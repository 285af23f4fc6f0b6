/**
 * Kafka's `MaskField$Key` / `MaskField$Value`: replaces the listed fields with a "null" value of their type
 * (0, 0.0, false, "", the epoch for dates, an empty list or map), or with `replacement` converted to the field's
 * type (numbers and strings only).
 *
 * The type of a Struct field comes from its schema; a schemaless value's from its JS type (an integer number is a
 * Java Long, other numbers a Double). A null key/value (tombstone) passes through unchanged; null fields stay null.
 */
import { BigDecimal } from "../big_decimal.ts";
import { DataException } from "../errors.ts";
import { ConnectDecimal, DECIMAL_LOGICAL_NAME, TEMPORAL_LOGICAL_NAMES } from "../logical.ts";
import type { Schema } from "../schema.ts";
import { Struct } from "../struct.ts";
import { isConnectMap } from "../struct.ts";
import {
  type ConfigKeyDef,
  nonEmptyList,
  nonEmptyString,
  REPLACE_NULL_WITH_DEFAULT_DEF,
  TransformConfig,
} from "./config.ts";
import {
  fieldValue,
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

export const MASK_FIELD_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "fields",
    type: "LIST",
    importance: "HIGH",
    documentation: "Names of fields to mask.",
    validator: nonEmptyList,
  },
  {
    name: "replacement",
    type: "STRING",
    default: null,
    importance: "LOW",
    documentation: "Custom value replacement, that will be applied to all 'fields' values " +
      "(numeric or non-empty string values only).",
    validator: nonEmptyString,
  },
  REPLACE_NULL_WITH_DEFAULT_DEF,
];

const PURPOSE = "mask fields";

/** The Java class a value has in Kafka, which decides how it is masked. */
type MaskKind =
  | "Byte"
  | "Short"
  | "Integer"
  | "Long"
  | "Float"
  | "Double"
  | "Boolean"
  | "String"
  | "BigDecimal"
  | "Date"
  | "List"
  | "Map"
  | "Other";

function kindFromSchema(schema: Schema): MaskKind {
  if (schema.name === DECIMAL_LOGICAL_NAME) return "BigDecimal";
  if (schema.name !== null && TEMPORAL_LOGICAL_NAMES.has(schema.name)) return "Date";
  const kinds: Record<string, MaskKind> = {
    INT8: "Byte",
    INT16: "Short",
    INT32: "Integer",
    INT64: "Long",
    FLOAT32: "Float",
    FLOAT64: "Double",
    BOOLEAN: "Boolean",
    STRING: "String",
    ARRAY: "List",
    MAP: "Map",
  };
  return kinds[schema.type] ?? "Other";
}

function kindFromValue(value: unknown): MaskKind {
  if (typeof value === "number") return Number.isInteger(value) ? "Long" : "Double";
  if (typeof value === "bigint") return "Long";
  if (typeof value === "boolean") return "Boolean";
  if (typeof value === "string") return "String";
  if (value instanceof BigDecimal) return "BigDecimal";
  if (value instanceof Date) return "Date";
  if (Array.isArray(value)) return "List";
  if (isConnectMap(value)) return "Map";
  return "Other";
}

const INTEGER_RANGES: Partial<Record<MaskKind, [bigint, bigint]>> = {
  Byte: [-128n, 127n],
  Short: [-32768n, 32767n],
  Integer: [-(2n ** 31n), 2n ** 31n - 1n],
  Long: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** `replacement` converted to the field's type (Kafka's `REPLACEMENT_MAPPING_FUNC`). */
function convertReplacement(kind: MaskKind, replacement: string, value: unknown): unknown {
  const notANumber = () =>
    new DataException(`Unable to convert ${replacement} (class java.lang.String) to number`);
  switch (kind) {
    case "String":
      return replacement;
    case "Float":
    case "Double": {
      const n = Number(replacement.trim());
      if (replacement.trim() === "" || Number.isNaN(n)) throw notANumber();
      return kind === "Float" ? Math.fround(n) : n;
    }
    case "BigDecimal": {
      const decimal = BigDecimal.tryParse(replacement);
      if (decimal === null) throw notANumber();
      return decimal;
    }
    case "Byte":
    case "Short":
    case "Integer":
    case "Long": {
      const decimal = BigDecimal.tryParse(replacement.trim());
      if (decimal === null) throw notANumber();
      const integer = decimal.toBigInt();
      const [min, max] = INTEGER_RANGES[kind]!;
      if (integer < min || integer > max) throw notANumber();
      return kind === "Long" &&
          (integer > BigInt(Number.MAX_SAFE_INTEGER) || integer < -BigInt(Number.MAX_SAFE_INTEGER))
        ? integer
        : Number(integer);
    }
    default:
      throw new DataException(
        `Cannot mask value of type class ${javaClassName(value)} with custom replacement.`,
      );
  }
}

export class MaskField<R extends AnyRecord> implements Transformation<R> {
  #fields = new Set<string>();
  #replacement: string | null = null;
  #replaceNullWithDefault = true;

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(MASK_FIELD_CONFIG_DEF, props);
    this.#fields = new Set(config.getList("fields"));
    this.#replacement = config.getString("replacement");
    this.#replaceNullWithDefault = config.getBoolean("replace.null.with.default");
  }

  apply(record: R): R {
    const value = operatingValue(record, this.side);
    if (value === null) return record;
    return operatingSchema(record, this.side) === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, value);
  }

  #applySchemaless(record: R, raw: unknown): R {
    const value = requireMap(raw, PURPOSE);
    const updated = MapBuilder.like(value, true);
    for (const field of this.#fields) {
      const original = mapGet(value, field);
      updated.set(field, original === null ? null : this.#masked(kindFromValue(original), original, null));
    }
    return withOperating(record, this.side, null, updated.build());
  }

  #applyWithSchema(record: R, raw: unknown): R {
    const value = requireStruct(raw, PURPOSE);
    const updated = new Struct(value.schema);
    for (const field of value.schema.fields()) {
      const original = fieldValue(value, field, this.#replaceNullWithDefault);
      const masked = this.#fields.has(field.name) && original !== null
        ? this.#masked(kindFromSchema(field.schema), original, field.schema)
        : original;
      updated.put(field, masked);
    }
    return withOperating(record, this.side, value.schema, updated);
  }

  #masked(kind: MaskKind, value: unknown, schema: Schema | null): unknown {
    if (this.#replacement !== null) return convertReplacement(kind, this.#replacement, value);
    switch (kind) {
      case "Byte":
      case "Short":
      case "Integer":
      case "Long":
      case "Float":
      case "Double":
        return 0;
      case "Boolean":
        return false;
      case "String":
        return "";
      case "BigDecimal":
        // Kafka uses BigDecimal.ZERO (scale 0), which its Decimal serialisation then rejects for any other
        // scale; zero at the schema's scale masks the same way and still serialises.
        return new BigDecimal(0n, schema !== null ? ConnectDecimal.scale(schema) : 0);
      case "Date":
        return new Date(0);
      case "List":
        return [];
      case "Map":
        return value instanceof Map ? new Map() : {};
      default:
        throw new DataException(`Cannot mask value of type: class ${javaClassName(value)}`);
    }
  }

  close(): void {}
}
