/**
 * Type lookup for a .proto file: its own messages and enums plus the well-known types Confluent's converter
 * uses without registering them as references (google/protobuf/timestamp.proto, wrappers.proto,
 * google/type/date.proto, timeofday.proto, confluent/type/decimal.proto). Names resolve the way protoc resolves
 * them: a leading dot is absolute; otherwise the innermost enclosing scope that defines the name wins.
 */
import { DataException } from "../../errors.ts";
import type { ProtoEnum, ProtoField, ProtoFile, ProtoMessage } from "./proto_model.ts";

export const TIMESTAMP_TYPE = "google.protobuf.Timestamp";
export const DATE_TYPE = "google.type.Date";
export const TIME_OF_DAY_TYPE = "google.type.TimeOfDay";
export const DECIMAL_TYPE = "confluent.type.Decimal";

/** The file each well-known type is imported from. */
export const WELL_KNOWN_IMPORTS: Readonly<Record<string, string>> = {
  [TIMESTAMP_TYPE]: "google/protobuf/timestamp.proto",
  [DATE_TYPE]: "google/type/date.proto",
  [TIME_OF_DAY_TYPE]: "google/type/timeofday.proto",
  [DECIMAL_TYPE]: "confluent/type/decimal.proto",
};

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
for (const name of Object.keys(WRAPPERS)) {
  (WELL_KNOWN_IMPORTS as Record<string, string>)[name] = "google/protobuf/wrappers.proto";
}

function field(name: string, number: number, type: string): ProtoField {
  return { name, number, label: null, type, map: null, params: new Map(), oneof: null, packed: null };
}

function message(fullName: string, fields: ProtoField[]): ProtoMessage {
  return {
    kind: "message",
    name: fullName.slice(fullName.lastIndexOf(".") + 1),
    fullName,
    fields,
    messages: [],
    enums: [],
  };
}

const WELL_KNOWN: ReadonlyMap<string, ProtoMessage> = new Map([
  [TIMESTAMP_TYPE, message(TIMESTAMP_TYPE, [field("seconds", 1, "int64"), field("nanos", 2, "int32")])],
  [
    DATE_TYPE,
    message(DATE_TYPE, [field("year", 1, "int32"), field("month", 2, "int32"), field("day", 3, "int32")]),
  ],
  [
    TIME_OF_DAY_TYPE,
    message(TIME_OF_DAY_TYPE, [
      field("hours", 1, "int32"),
      field("minutes", 2, "int32"),
      field("seconds", 3, "int32"),
      field("nanos", 4, "int32"),
    ]),
  ],
  [
    DECIMAL_TYPE,
    message(DECIMAL_TYPE, [
      field("value", 1, "bytes"),
      field("precision", 2, "uint32"),
      field("scale", 3, "int32"),
    ]),
  ],
  ...Object.entries(WRAPPERS).map(([name, scalar]) =>
    [name, message(name, [field("value", 1, scalar)])] as const
  ),
]);

export type ProtoNamedType = ProtoMessage | ProtoEnum;

export class ProtoTypes {
  readonly #byName = new Map<string, ProtoNamedType>(WELL_KNOWN);

  constructor(readonly file: ProtoFile) {
    const add = (m: ProtoMessage) => {
      this.#byName.set(m.fullName, m);
      m.messages.forEach(add);
      m.enums.forEach((e) => this.#byName.set(e.fullName, e));
    };
    file.messages.forEach(add);
    file.enums.forEach((e) => this.#byName.set(e.fullName, e));
  }

  /** Resolves `name` as written inside the message (or file, for "") whose full name is `scope`. */
  resolve(name: string, scope: string): ProtoNamedType {
    if (name.startsWith(".")) return this.#get(name.slice(1), name);
    const parts = scope === "" ? [] : scope.split(".");
    for (let i = parts.length; i >= 0; i--) {
      const candidate = [...parts.slice(0, i), name].join(".");
      const found = this.#byName.get(candidate);
      if (found !== undefined) return found;
    }
    return this.#get(name, name);
  }

  #get(fullName: string, written: string): ProtoNamedType {
    const found = this.#byName.get(fullName);
    if (found === undefined) throw new DataException(`Unknown Protobuf type ${written}`);
    return found;
  }

  /** The message at a Confluent message-index path (`[0]` = the first top-level message). */
  messageAt(indexes: readonly number[]): ProtoMessage {
    let list: readonly ProtoMessage[] = this.file.messages;
    let current: ProtoMessage | undefined;
    for (const index of indexes) {
      current = list[index];
      if (current === undefined) throw new DataException(`No message at index path [${indexes.join(", ")}]`);
      list = current.messages;
    }
    if (current === undefined) throw new DataException("Empty message index path");
    return current;
  }
}
