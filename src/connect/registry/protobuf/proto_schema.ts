/**
 * .proto text → protobufjs types. protobufjs parses and resolves the file; the well-known types Confluent's
 * converter uses without registering them as references (google/protobuf/timestamp.proto, wrappers.proto,
 * google/type/date.proto, timeofday.proto, confluent/type/decimal.proto) are declared here. A Confluent message
 * index path (`[0]` = the first top-level message) selects a message among the file's own messages.
 */
import protobuf from "protobufjs";
import { DataException } from "../../errors.ts";
import { dataCall } from "../registry_format.ts";

/** The well-known messages of Connect's logical types. */
export const WELL_KNOWN = Object.freeze({
  timestamp: "google.protobuf.Timestamp",
  date: "google.type.Date",
  timeOfDay: "google.type.TimeOfDay",
  decimal: "confluent.type.Decimal",
});

/** Wrapper message → the scalar it wraps (its only field, `value = 1`). */
export const WRAPPERS: Readonly<Record<string, string>> = {
  "google.protobuf.DoubleValue": "double",
  "google.protobuf.FloatValue": "float",
  "google.protobuf.Int64Value": "int64",
  "google.protobuf.UInt64Value": "uint64",
  "google.protobuf.Int32Value": "int32",
  "google.protobuf.UInt32Value": "uint32",
  "google.protobuf.BoolValue": "bool",
  "google.protobuf.StringValue": "string",
  "google.protobuf.BytesValue": "bytes",
};

/** The file each well-known type is imported from. */
export const WELL_KNOWN_IMPORTS: Readonly<Record<string, string>> = {
  [WELL_KNOWN.timestamp]: "google/protobuf/timestamp.proto",
  [WELL_KNOWN.date]: "google/type/date.proto",
  [WELL_KNOWN.timeOfDay]: "google/type/timeofday.proto",
  [WELL_KNOWN.decimal]: "confluent/type/decimal.proto",
  ...Object.fromEntries(Object.keys(WRAPPERS).map((name) => [name, "google/protobuf/wrappers.proto"])),
};

/** A proto2 message (so zeros we pass are written); `fields` are "type name, ...", numbered from 1. */
const message = (name: string, fields: string) =>
  `message ${name} { ${fields.split(", ").map((f, i) => `optional ${f} = ${i + 1};`).join(" ")} } `;
/** The well-known messages, one file per package. */
const WELL_KNOWN_PROTO = [
  "package google.protobuf; " + message("Timestamp", "int64 seconds, int32 nanos") +
  Object.entries(WRAPPERS).map(([name, scalar]) => message(name.slice(16), `${scalar} value`)).join(""),
  "package google.type; " + message("Date", "int32 year, int32 month, int32 day") +
  message("TimeOfDay", "int32 hours, int32 minutes, int32 seconds, int32 nanos"),
  "package confluent.type; " + message("Decimal", "bytes value, uint32 precision, int32 scale"),
];

export interface ProtoFile {
  /** The file's top-level messages, in declaration order. */
  readonly messages: readonly protobuf.Type[];
}

const messagesOf = (namespace: protobuf.NamespaceBase) =>
  namespace.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type);

/** Parses .proto text; throws `DataException` for text protobufjs cannot read or resolve. */
export function parseProto(text: string): ProtoFile {
  return dataCall("Invalid Protobuf schema", () => {
    const root = new protobuf.Root();
    for (const proto of WELL_KNOWN_PROTO) protobuf.parse(proto, root);
    const parsed = protobuf.parse(text, root, { keepCase: true });
    root.resolveAll();
    return {
      messages: messagesOf(parsed.package ? root.lookup(parsed.package) as protobuf.Namespace : root),
    };
  });
}

/** The message at a Confluent message-index path (`[0]` = the first top-level message). */
export function messageAt(file: ProtoFile, indexes: readonly number[]): protobuf.Type {
  let list = file.messages;
  let current: protobuf.Type | undefined;
  for (const index of indexes) {
    current = list[index];
    if (current === undefined) throw new DataException(`No message at index path [${indexes.join(", ")}]`);
    list = messagesOf(current);
  }
  if (current === undefined) throw new DataException("Empty message index path");
  return current;
}

/** The full name without protobufjs's leading dot. */
export function protoFullName(type: protobuf.ReflectionObject): string {
  return type.fullName.replace(/^\./, "");
}
