/**
 * Default values between Connect and Avro schema JSON (Confluent's `defaultValueFromConnect` /
 * `defaultValueFromAvro`): logical values go through their underlying type, bytes are ISO-8859-1 strings (the
 * Avro specification's JSON form of bytes), structs and string-keyed maps are objects.
 */
import { Buffer } from "node:buffer";
import { logicalToUnderlying } from "../../logical.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { mapEntries } from "../../values.ts";

/** A Connect default as Avro default JSON. */
export function encodeLatin1Default(schema: Schema, value: unknown): unknown {
  const v = logicalToUnderlying(schema, value);
  switch (schema.type) {
    case "INT64":
      return typeof v === "bigint" ? Number(v) : v;
    case "BYTES":
      return Buffer.from(v as Uint8Array).toString("latin1");
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
