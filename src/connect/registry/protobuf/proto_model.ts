/**
 * A parsed .proto file: the subset of the Protocol Buffers language the converters need (proto2/proto3
 * messages, nested messages and enums, scalar/message/enum/map fields, `repeated` and proto3 `optional`, oneofs,
 * and Confluent's `(confluent.field_meta)` parameters).
 */
export const SCALAR_TYPES = new Set([
  "double",
  "float",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
  "sfixed32",
  "sfixed64",
  "bool",
  "string",
  "bytes",
]);

export interface ProtoField {
  readonly name: string;
  readonly number: number;
  /** `optional` means explicit presence (proto2, or proto3 `optional`). */
  readonly label: "optional" | "required" | "repeated" | null;
  /** A scalar type name, or a message/enum name as written (resolve with `ProtoTypes.resolve`). */
  readonly type: string;
  /** For `map<K, V>` fields: the key and value types (the field is then repeated entries). */
  readonly map: { readonly key: string; readonly value: string } | null;
  /** Confluent's `(confluent.field_meta)` params (e.g. `connect.type`, `scale`, `precision`). */
  readonly params: ReadonlyMap<string, string>;
  /** The containing oneof's name, if any (proto3 `optional` fields are not reported as oneofs). */
  readonly oneof: string | null;
  /** False when `[packed = false]` is set on a repeated scalar. */
  readonly packed: boolean | null;
}

export interface ProtoEnum {
  readonly kind: "enum";
  readonly fullName: string;
  readonly values: ReadonlyArray<{ readonly name: string; readonly number: number }>;
}

export interface ProtoMessage {
  readonly kind: "message";
  readonly name: string;
  readonly fullName: string;
  readonly fields: ProtoField[];
  readonly messages: ProtoMessage[];
  readonly enums: ProtoEnum[];
}

export interface ProtoFile {
  readonly syntax: "proto2" | "proto3";
  readonly package: string | null;
  readonly imports: readonly string[];
  readonly messages: readonly ProtoMessage[];
  readonly enums: readonly ProtoEnum[];
}
