/**
 * Avro schema text → avsc types. avsc checks the schema (names, namespaces, references, defaults); the
 * attributes it does not keep (`logicalType`, `connect.*`, docs, raw field defaults) stay readable through
 * `avroAttributes`. Unions are always wrapped (`{branch: value}`), so our mapping picks the branch as
 * Confluent's `AvroData` does, and `long` reads and writes bigints beyond 2^53 (see schema.ts on INT64).
 */
import avsc from "avsc";
import { Buffer } from "node:buffer";
import { normalizeInt64 } from "../../values.ts";
import { dataCall } from "../registry_format.ts";

export type AvroType = avsc.Type & Record<string, any>;
/** A record field as avsc gives it. */
export interface AvroField {
  readonly name: string;
  readonly type: AvroType;
}

const attributes = new WeakMap<avsc.Type, Record<string, any>>();
/** The values of a schema's `type` attribute that define a type (anything else names or nests one). */
const TYPE_NAMES = new Set([
  ...["null", "boolean", "int", "long", "float", "double", "bytes", "string"],
  ...["record", "error", "enum", "fixed", "array", "map"],
]);

/** The schema attributes of a type as written (empty for a type given by name). */
export function avroAttributes(type: avsc.Type): Record<string, any> {
  return attributes.get(type) ?? {};
}

/** The avsc type name: `int`, `long`, `record`, `union`, ... */
export function avroKind(type: avsc.Type): string {
  return KINDS[type.typeName] ?? type.typeName;
}

const KINDS: Readonly<Record<string, string>> = {
  "abstract:long": "long",
  "union:wrapped": "union",
  "error": "record",
};

/** The 8-byte two's complement avsc hands a `long` type; one scratch buffer, as avsc packs it at once. */
const scratch = Buffer.alloc(8);
const TWO_32 = 2 ** 32;

/** A `long` that reads a number when it is safe and a bigint otherwise, and writes either. */
function longType(): avsc.Type {
  return avsc.types.LongType.__with({
    fromBuffer: (buf: Buffer) => {
      const high = buf.readInt32LE(4);
      if (Math.abs(high) < 2 ** 20) return high * TWO_32 + buf.readUInt32LE(0);
      return normalizeInt64(buf.readBigInt64LE());
    },
    toBuffer: (n: number | bigint) => {
      if (typeof n === "bigint" || !Number.isSafeInteger(n)) {
        scratch.writeBigInt64LE(BigInt(n));
      } else {
        const high = Math.floor(n / TWO_32);
        scratch.writeUInt32LE(n - high * TWO_32, 0);
        scratch.writeInt32LE(high, 4);
      }
      return scratch;
    },
    fromJSON: (json: unknown) => json,
    toJSON: (n: number | bigint) => Number(n),
    isValid: (n: unknown) => typeof n === "bigint" || Number.isInteger(n),
    compare: (a: number | bigint, b: number | bigint) => (a < b ? -1 : a > b ? 1 : 0),
  });
}

/** Parses schema JSON text; throws `DataException` for invalid schemas. */
export function parseAvroSchema(text: string): AvroType {
  const json = dataCall("Invalid Avro schema JSON", () => JSON.parse(text));
  const seen = new Set<unknown>();
  const typeHook = (schema: any, opts: any): avsc.Type | undefined => {
    if (schema === "long" || schema?.type === "long") {
      const type = longType();
      if (typeof schema === "object") attributes.set(type, schema);
      return type;
    }
    if (typeof schema !== "object" || schema === null || Array.isArray(schema) || seen.has(schema)) {
      return undefined;
    }
    // {"type": "some.Named"} or {"type": {...}}: the attribute itself is the schema.
    if (!TYPE_NAMES.has(schema.type)) return avsc.Type.forSchema(schema.type, opts);
    seen.add(schema);
    const type = avsc.Type.forSchema(schema, opts);
    attributes.set(type, schema);
    return type;
  };
  return dataCall(
    "Invalid Avro schema",
    () => avsc.Type.forSchema(json, { wrapUnions: true, typeHook }) as AvroType,
  );
}
