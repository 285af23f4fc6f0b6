/**
 * A parsed Avro schema (Avro specification 1.11, "Schema Declaration"). Named types carry their full name;
 * a record refers to itself or another named type by the same object, so recursive schemas are graphs.
 * `props` keeps every attribute the specification does not define (`logicalType`, `connect.*`, ...) with its
 * JSON value, in document order.
 */
export type AvroPrimitive = "null" | "boolean" | "int" | "long" | "float" | "double" | "bytes" | "string";

export type AvroProps = ReadonlyMap<string, unknown>;

export interface AvroField {
  readonly name: string;
  readonly type: AvroType;
  readonly doc: string | null;
  /** True when the field declares a default (which may be JSON null). */
  readonly hasDefault: boolean;
  /** The default as JSON (for a union: a value of the first branch). */
  readonly default: unknown;
}

export type AvroType =
  | { readonly kind: "primitive"; readonly type: AvroPrimitive; readonly props: AvroProps }
  | {
    readonly kind: "record";
    readonly fullName: string;
    readonly doc: string | null;
    /** Filled in after the record is created, so fields can refer to the record itself. */
    fields: AvroField[];
    readonly props: AvroProps;
  }
  | {
    readonly kind: "enum";
    readonly fullName: string;
    readonly symbols: readonly string[];
    readonly props: AvroProps;
  }
  | { readonly kind: "fixed"; readonly fullName: string; readonly size: number; readonly props: AvroProps }
  | { readonly kind: "array"; readonly items: AvroType; readonly props: AvroProps }
  | { readonly kind: "map"; readonly values: AvroType; readonly props: AvroProps }
  | { readonly kind: "union"; readonly branches: readonly AvroType[] };

/** A string attribute of a type, or null (unions have none). */
export function avroProp(type: AvroType, name: string): unknown {
  return type.kind === "union" ? undefined : type.props.get(name);
}

/** The name Avro uses for a branch of a union (`string`, `map`, or the full name of a named type). */
export function avroTypeName(type: AvroType): string {
  switch (type.kind) {
    case "primitive":
      return type.type;
    case "record":
    case "enum":
    case "fixed":
      return type.fullName;
    default:
      return type.kind;
  }
}

/** The part of a full name after the last dot. */
export function simpleName(fullName: string): string {
  return fullName.slice(fullName.lastIndexOf(".") + 1);
}
